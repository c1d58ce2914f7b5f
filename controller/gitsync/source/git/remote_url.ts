/**
 * A Repository's Git URL, checked before anything connects (seed section 2): https, http, ssh
 * (ssh:// or scp-style user@host:path) and git; filesystem paths and every other scheme are refused,
 * so a Repository can never read the controller's own disk. The CRD refuses the same at admission;
 * this is the check the controller relies on.
 */
import { redact } from "../../redact.ts";

export type Transport = "https" | "http" | "ssh" | "git";

export interface RemoteUrl {
  transport: Transport;
  /** The URL to connect to (scp-style rewritten as ssh://). */
  url: string;
  host: string;
  /** Repository path on the host, without a leading slash. */
  path: string;
  /** The path git-upload-pack gets: absolute for URLs, relative to the login's home for scp-style. */
  serverPath: string;
}

export class RemoteUrlError extends Error {
  override name = "RemoteUrlError";
}

/** Whether `text` names a remote (a URL, or scp-style user@host:path) rather than a folder. */
export function isRemote(text: string): boolean {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(text) || /^[^/\s]+@[^/\s]+:/.test(text);
}

const SCP = /^(?<user>[A-Za-z0-9._-]+)@(?<host>[A-Za-z0-9.-]+):(?<path>[^/\s][^\s]*)$/;

export function parseRemoteUrl(raw: string): RemoteUrl {
  const text = raw.trim();
  const scp = SCP.exec(text);
  if (scp) {
    const { user, host, path } = scp.groups!;
    return {
      transport: "ssh",
      url: `ssh://${user}@${host}/${path}`,
      host: host!.toLowerCase(),
      path: path!,
      serverPath: path!,
    };
  }
  let u: URL;
  try {
    u = new URL(text);
  } catch {
    throw new RemoteUrlError(
      `"${
        redact(text)
      }" is not a Git URL: use https://, http://, ssh://, git:// or user@host:path (filesystem paths are refused)`,
    );
  }
  const transport = u.protocol.slice(0, -1);
  if (transport !== "https" && transport !== "http" && transport !== "ssh" && transport !== "git") {
    throw new RemoteUrlError(
      `the ${transport}: scheme is not allowed for Git repositories: use https, http, ssh or git (filesystem paths are refused)`,
    );
  }
  if (!u.hostname) throw new RemoteUrlError(`"${redact(text)}" names no host`);
  if (transport !== "ssh" && (u.username || u.password)) {
    throw new RemoteUrlError(
      "credentials in a Git URL are refused: put them in a git-credentials Secret (spec.git.auth)",
    );
  }
  const path = decodeURIComponent(u.pathname).replace(/^\/+/, "");
  if (!path) throw new RemoteUrlError(`"${redact(text)}" names no repository path`);
  return { transport, url: u.toString(), host: u.hostname.toLowerCase(), path, serverPath: `/${path}` };
}
