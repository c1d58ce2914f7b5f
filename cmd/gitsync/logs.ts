/**
 * `gitsync logs <application>`: what happened, as the controller recorded it — the Events of the
 * Application and of its desired and deployed Revisions (the last rollout: planning, approval, hooks,
 * waves, failures, diagnosis), oldest first. Messages are already redacted by the controller.
 */
import type { Command } from "@commander-js/extra-typings";
import { addExamples, type Io } from "../../internal/cli/mod.ts";
import type { KubeObject } from "../../internal/k8s/mod.ts";
import { listEvents } from "../../internal/k8s/resources.ts";
import { formatAge, listDocument } from "../../internal/k8s/table.ts";
import { APPLICATION_ARG, readsOne } from "./kube.ts";
import { getApplication, getRevision } from "../../controller/gitsync/client/mod.ts";
import { API_VERSION } from "../../controller/gitsync/api/mod.ts";

export function registerLogs(program: Command, io: Io) {
  const command = program
    .command("logs")
    .summary("Show the Events of an Application and its last rollout, oldest first")
    .description(
      "Show what the controller recorded for the Application and for its desired and deployed Revisions " +
        "(planning, approval, hooks, waves, drift, failures, diagnosis, notifications), oldest first. Events " +
        "are kept by the cluster for about an hour by default. Needs permission to list Events.",
    );
  readsOne(command, io, APPLICATION_ARG, async ({ client, namespace }, name) => {
    const app = await getApplication(client, namespace, name);
    const names = [
      ...new Set([app.status?.desiredRevision, app.status?.deployedRevision].filter(Boolean)),
    ];
    const revisions = await Promise.all(
      names.map((n) => getRevision(client, namespace, n!).catch(() => undefined)),
    );
    const objects = [
      { ...app, apiVersion: API_VERSION, kind: "Application" },
      ...revisions.filter((r) => r !== undefined).map((r) => ({
        ...r,
        apiVersion: API_VERSION,
        kind: "Revision",
      })),
    ];
    const time = (e: KubeObject) =>
      String(e.lastTimestamp ?? e.eventTime ?? e.firstTimestamp ?? e.metadata?.creationTimestamp ?? "");
    const events = (await Promise.all(objects.map((o) => listEvents(client, o as KubeObject)))).flat()
      .sort((a, b) => time(a).localeCompare(time(b)));
    const now = new Date();
    const document = listDocument(events);
    return {
      document,
      text: {
        headers: ["last seen", "type", "reason", "object", "message"],
        rows: () =>
          events.map((e) => {
            const involved = e.involvedObject as { kind?: string; name?: string } | undefined;
            const count = Number(e.count ?? 1);
            return [
              formatAge(time(e), now),
              e.type as string,
              e.reason as string,
              `${involved?.kind}/${involved?.name}`,
              `${e.message as string}${count > 1 ? ` (x${count})` : ""}`,
            ];
          }),
        empty: `No Events for Application ${namespace}/${name} (Events expire after about an hour).`,
      },
    };
  });
  addExamples(command, [
    "# What happened to Application web's last rollout\ngitsync logs web -n shop",
    "# As JSON for a CI log\ngitsync logs web -n shop -o json",
  ]);
}
