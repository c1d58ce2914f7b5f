/**
 * The console's reads (seed 5.5), each as the signed-in user through ConsoleKubeClient. A 401 from the
 * API server ends the session (cookie cleared, 401 to the page); 403 and 404 pass through.
 *
 *   GET  /api/applications[?namespace=]    list
 *   GET  /api/applications/:ns/:name       the Application and its Revisions
 *   GET  /api/applications/:ns/:name/graph the live resource graph (as `gitsync graph`)
 *   GET  /api/revisions/:ns/:name          a Revision: plan with diffs, hooks, approval, diagnosis
 *   GET  /api/repositories[?namespace=]    list
 */
import type { Context, Hono } from "hono";
import type { AppEnv } from "../../../internal/http/mod.ts";
import { isKubeApiError } from "../../../internal/k8s/mod.ts";
import { type Application, APPLICATION_LABEL, type Revision } from "../api/mod.ts";
import { collectionPath, objectPath } from "../client/mod.ts";
import { buildGraph } from "../graph/graph.ts";
import type { ConsoleKubeClient } from "./console_kube_client.ts";
import { ConsoleRequestRefused } from "./read_only_request.ts";
import type { ConsoleSessions } from "./sessions.ts";

const NAME = /^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/;
const NAMESPACE = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

class BadRequest extends Error {}

function param(value: string | undefined, what: "namespace" | "name"): string {
  if (!value || !(what === "namespace" ? NAMESPACE : NAME).test(value)) {
    throw new BadRequest(`invalid ${what}`);
  }
  return value;
}

/** What the pages list for a Revision (the console's web app imports this type). */
export type RevisionSummary = ReturnType<typeof revisionSummary>;

function revisionSummary(r: Revision) {
  return {
    name: r.metadata!.name,
    sourceRevision: r.spec.sourceRevision,
    phase: r.status?.phase ?? "Pending",
    planDigest: r.status?.plan?.digest,
    summary: r.status?.plan?.summary,
    approved: !!r.status?.approval,
    createdAt: r.metadata!.creationTimestamp,
    finishedAt: r.status?.finishedAt,
  };
}

export function mountReads(app: Hono<AppEnv>, s: ConsoleSessions) {
  /** Runs a read as the signed-in user and maps what can go wrong to the page's answers. */
  const read = async (c: Context<AppEnv>, fn: (client: ConsoleKubeClient) => Promise<unknown>) => {
    const session = s.session(c);
    if (!session) return s.signedOut(c, "not signed in");
    const client = s.clientFor(session);
    try {
      return c.json(await fn(client) as object, 200, { "cache-control": "no-store" });
    } catch (err) {
      if (err instanceof BadRequest) return c.json({ error: err.message }, 400);
      if (err instanceof ConsoleRequestRefused) return c.json({ error: err.message }, 403);
      if (isKubeApiError(err, 401)) {
        return s.signedOut(c, "session ended: the API server no longer accepts it");
      }
      if (isKubeApiError(err, 403) || isKubeApiError(err, 404)) {
        const e = err as { status: number; serverMessage?: string; message: string };
        return c.json({ error: e.serverMessage ?? e.message }, e.status as 403 | 404);
      }
      throw err;
    } finally {
      client.close();
    }
  };

  /** The objects of a kind in ?namespace=, or across all namespaces. */
  const list = (plural: "applications" | "repositories") => (c: Context<AppEnv>) =>
    read(c, async (client) => {
      const ns = c.req.query("namespace");
      const answer = await client.request<{ items: unknown[] }>({
        path: collectionPath(plural, ns === undefined || ns === "" ? undefined : param(ns, "namespace")),
      });
      return { items: answer.items };
    });

  /** The object :ns/:name of a kind (both checked first: a bad one is 400). */
  const named = <T>(c: Context<AppEnv>, client: ConsoleKubeClient, plural: "applications" | "revisions") => {
    const ns = param(c.req.param("ns"), "namespace");
    const name = param(c.req.param("name"), "name");
    return client.request<T>({ path: objectPath(plural, ns, name) }).then((object) => ({ ns, name, object }));
  };

  app.get("/api/applications", list("applications"));

  app.get("/api/applications/:ns/:name", (c) =>
    read(c, async (client) => {
      const { ns, name, object: application } = await named<Application>(c, client, "applications");
      const revisions = await client.request<{ items: Revision[] }>({
        path: collectionPath("revisions", ns),
        query: { labelSelector: `${APPLICATION_LABEL}=${name}` },
      });
      const items = revisions.items
        .filter((r) => r.spec.applicationRef.name === name)
        .sort((a, b) =>
          (b.metadata!.creationTimestamp ?? "").localeCompare(a.metadata!.creationTimestamp ?? "")
        )
        .map(revisionSummary);
      return { application, revisions: items };
    }));

  app.get("/api/applications/:ns/:name/graph", (c) =>
    read(c, async (client) => {
      const { object: application } = await named<Application>(c, client, "applications");
      // The console never reads Secrets, not even their metadata: the page says they are left out.
      const kinds = application.status?.managedKinds ?? [];
      const isSecret = (k: { group: string; kind: string }) => k.group === "" && k.kind === "Secret";
      const graph = await buildGraph(client, {
        ...application,
        status: { ...application.status, managedKinds: kinds.filter((k) => !isSecret(k)) },
      });
      return { ...graph, secretsLeftOut: kinds.some(isSecret) };
    }));

  app.get(
    "/api/revisions/:ns/:name",
    (c) => read(c, async (client) => (await named<Revision>(c, client, "revisions")).object),
  );

  app.get("/api/repositories", list("repositories"));
}
