/**
 * A Repository's Git credentials (seed section 5.3): only from a Secret in its namespace labelled
 * `sync.gitsync.io/git-credentials=true`, read with an uncached get every time. Keys: `username` and
 * `password`, `bearerToken`, or `identity` (an SSH key) with `known_hosts`.
 */
import type { KubeClient } from "../../../../internal/k8s/mod.ts";
import { GIT_CREDENTIALS_LABEL, type Repository } from "../../api/mod.ts";
import { readLabelledSecret, secretText } from "../../client/mod.ts";
import type { GitCredentials } from "./git_source.ts";

export class CredentialsRefused extends Error {
  override name = "CredentialsRefused";
}

/**
 * The Git credentials of a Repository: from the Secret spec.git.auth names (or, for image write-back,
 * spec.imageUpdate), in the same namespace, only when it is labelled
 * sync.gitsync.io/git-credentials=true; read uncached every time.
 */
export async function readGitCredentials(
  client: KubeClient,
  repo: Repository,
  use: "spec.git.auth" | "spec.imageUpdate" = "spec.git.auth",
): Promise<GitCredentials | undefined> {
  const name = use === "spec.git.auth"
    ? repo.spec.git.auth?.secretRef?.name
    : repo.spec.imageUpdate?.secretRef?.name;
  if (!name) return undefined;
  const secret = await readLabelledSecret(client, {
    namespace: repo.metadata!.namespace!,
    name,
    field: `${use}.secretRef`,
    label: GIT_CREDENTIALS_LABEL,
    notUsed: "it is not used for Git credentials",
  }, (message) => new CredentialsRefused(message));
  const value = (k: string) => secretText(secret, k);
  const c: GitCredentials = {};
  const username = value("username");
  const password = value("password");
  const bearerToken = value("bearerToken");
  const identity = value("identity");
  const knownHosts = value("known_hosts");
  if (identity) c.identity = identity;
  if (knownHosts) c.knownHosts = knownHosts;
  if (username) c.username = username;
  if (password) c.password = password;
  if (bearerToken) c.bearerToken = bearerToken;
  return c;
}
