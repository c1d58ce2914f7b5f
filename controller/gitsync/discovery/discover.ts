/**
 * Application discovery from `.gitsync.yaml` files (seed sections 2 and 8.7). A Repository's fetched
 * commit may carry `.gitsync.yaml` files at spec.applicationConfigPaths (default: the root file), each
 * holding one Application (`name`, `spec`) or an `applications:` list of them; names are unique across
 * files. What a file may ask for is bounded by the Repository: the only service account is
 * spec.applicationServiceAccountName, and spec.applicationPolicy (all off by default) allows automatic
 * sync, prune, adoption and deleting the workloads of a removed Application. One refusal anywhere and
 * nothing discovered is created, changed or deleted until it is fixed.
 *
 * The file format (the seed does not show it):
 *
 *   applications:
 *     - name: web
 *       spec:
 *         source: { path: deploy/web }       # repositoryRef is always this Repository
 *         sync: { automatic: true }
 *
 * Allowed under spec: source (path, render), sync, serviceAccountName, conflictPolicy, history,
 * notifications, decryption, suspend. Approvals and rollbacks come from people, never from a file.
 */
import { parse } from "yaml";
import type { Tree } from "../source/tree.ts";
import type { Application, Repository } from "../api/mod.ts";

/** Why discovery changed nothing: reason InvalidConfig (a file is wrong) or PolicyViolation (asks too much). */
export class DiscoveryRefused extends Error {
  override name = "DiscoveryRefused";
  constructor(readonly reason: "InvalidConfig" | "PolicyViolation", message: string) {
    super(message);
  }
}

export interface DiscoveredApplication {
  name: string;
  /** The `.gitsync.yaml` it came from. */
  file: string;
  spec: Application["spec"];
}

const SPEC_FIELDS = new Set([
  "source",
  "sync",
  "serviceAccountName",
  "conflictPolicy",
  "history",
  "notifications",
  "decryption",
  "suspend",
]);
const NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/** The configuration paths a Repository reads. */
export function configPaths(repo: Repository): string[] {
  const paths = repo.spec.applicationConfigPaths ?? [];
  return paths.length ? paths : [".gitsync.yaml"];
}

/** The Applications the commit's `.gitsync.yaml` files declare; a missing file declares none. */
export function readConfigs(tree: Tree, paths: string[]): DiscoveredApplication[] {
  const refuse = (message: string) => new DiscoveryRefused("InvalidConfig", message);
  const out: DiscoveredApplication[] = [];
  const seen = new Map<string, string>();
  for (const file of paths) {
    const bytes = tree.get(file);
    if (!bytes) continue;
    let doc: unknown;
    try {
      doc = parse(new TextDecoder().decode(bytes), { maxAliasCount: 100 });
    } catch (err) {
      throw refuse(`${file}: not YAML: ${(err as Error).message.split("\n")[0]}`);
    }
    if (doc === null || doc === undefined) continue;
    if (typeof doc !== "object" || Array.isArray(doc)) {
      throw refuse(`${file}: expected an Application (name, spec) or an applications: list`);
    }
    const entries = "applications" in doc ? (doc as { applications: unknown }).applications : [doc];
    if (!Array.isArray(entries)) throw refuse(`${file}: applications must be a list`);
    entries.forEach((entry, i) => {
      const where = `${file}: applications[${i}]`;
      if (!entry || typeof entry !== "object" || Array.isArray(entry)) {
        throw refuse(`${where} is not an object`);
      }
      const { name, spec, ...rest } = entry as { name?: unknown; spec?: unknown };
      const extra = Object.keys(rest);
      if (extra.length) throw refuse(`${where}: unknown field ${extra[0]} (an entry has name and spec)`);
      if (typeof name !== "string" || !NAME.test(name) || name.length > 63) {
        throw refuse(
          `${where}: name must be a DNS label (lower-case letters, digits, -), not ${JSON.stringify(name)}`,
        );
      }
      if (seen.has(name)) throw refuse(`${file}: Application ${name} is also declared in ${seen.get(name)}`);
      seen.set(name, file);
      if (!spec || typeof spec !== "object" || Array.isArray(spec)) {
        throw refuse(`${where} (${name}): spec is missing`);
      }
      const unknown = Object.keys(spec).find((k) => !SPEC_FIELDS.has(k));
      if (unknown) throw refuse(`${where} (${name}): spec.${unknown} may not be set from a .gitsync.yaml`);
      const s = spec as Application["spec"];
      if (!s.source || typeof s.source !== "object") {
        throw refuse(`${where} (${name}): spec.source is missing`);
      }
      out.push({ name, file, spec: s });
    });
  }
  return out;
}

/**
 * The Applications as they will be created: checked against the Repository's policy (the first refusal
 * names the Application, its file and the field) and completed (repositoryRef, service account, prune off
 * when not allowed).
 */
export function applyPolicy(repo: Repository, apps: DiscoveredApplication[]): DiscoveredApplication[] {
  const policy = repo.spec.applicationPolicy ?? {};
  const sa = repo.spec.applicationServiceAccountName;
  const repoName = repo.metadata!.name!;
  return apps.map((app) => {
    const refuse = (field: string, why: string) =>
      new DiscoveryRefused("PolicyViolation", `${app.file}: Application ${app.name}: ${field} ${why}`);
    const s = app.spec;
    const ref = s.source.repositoryRef?.name;
    if (ref !== undefined && ref !== repoName) {
      throw refuse(
        "spec.source.repositoryRef",
        `names Repository ${ref}; discovered Applications use their own (${repoName})`,
      );
    }
    if (s.serviceAccountName !== undefined && s.serviceAccountName !== sa) {
      throw refuse(
        "spec.serviceAccountName",
        sa
          ? `must be ${sa} (spec.applicationServiceAccountName)`
          : "may not be set: the Repository has no applicationServiceAccountName",
      );
    }
    if (s.sync?.automatic && !policy.allowAutomatic) {
      throw refuse("spec.sync.automatic", "is not allowed (spec.applicationPolicy.allowAutomatic)");
    }
    if (s.sync?.prune === true && !policy.allowPrune) {
      throw refuse("spec.sync.prune", "is not allowed (spec.applicationPolicy.allowPrune)");
    }
    if (s.conflictPolicy === "adopt" && !policy.allowAdopt) {
      throw refuse("spec.conflictPolicy: adopt", "is not allowed (spec.applicationPolicy.allowAdopt)");
    }
    return {
      ...app,
      spec: {
        ...s,
        source: { ...s.source, repositoryRef: { name: repoName } },
        ...(sa ? { serviceAccountName: sa } : {}),
        sync: { ...s.sync, prune: policy.allowPrune ? (s.sync?.prune ?? true) : false },
      },
    };
  });
}
