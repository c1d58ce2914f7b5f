/**
 * Git host URLs compared the way push events need: scp-style `user@host:path` read as ssh, host
 * lower-cased, user and port dropped, path trimmed of slashes and a `.git` suffix; `host/path` is
 * what must match. So https://GitHub.com/org/app.git, git@github.com:org/app and
 * ssh://git@github.com:22/org/app/ are one repository.
 */
export function repositoryIdentity(url: string): string | undefined {
  let text = url.trim();
  const scp = /^([^@/:]+@)?([^/:]+):(?!\/\/)(.+)$/.exec(text);
  if (scp && !/^[a-z][a-z0-9+.-]*:\/\//i.test(text)) text = `ssh://${scp[1] ?? ""}${scp[2]}/${scp[3]}`;
  let parsed: URL;
  try {
    parsed = new URL(text);
  } catch {
    return undefined;
  }
  const path = decodeURIComponent(parsed.pathname).replace(/^\/+|\/+$/g, "").replace(/\.git$/, "");
  if (!parsed.hostname || !path) return undefined;
  return `${parsed.hostname.toLowerCase()}/${path}`;
}
