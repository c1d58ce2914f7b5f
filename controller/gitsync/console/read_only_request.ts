/**
 * What the console may ask the API server (seed 5.5, "Both"): GET only, for discovery, lists and gets.
 * Refused however they are spelled: Secrets (any case, any group, percent-encoded, across
 * namespaces), subresources (proxy, exec, attach, portforward, log, status, ...), watches (the watch
 * query or the legacy /watch/ path), connection upgrades, caller-supplied Authorization values and
 * Impersonate-* headers. The console's own credentials and impersonation are set by the client,
 * never by a caller.
 *
 * @example
 * const why = refusal({ method: "GET", path: "/api/v1/namespaces/x/secrets" });
 * // "Secrets are never read by the console"
 */

export interface ConsoleRequest {
  method: string;
  path: string;
  query?: Record<string, unknown>;
  /** Headers a caller asks to add; the client sets its own Authorization and impersonation. */
  headers?: Record<string, string | string[] | undefined>;
}

export class ConsoleRequestRefused extends Error {
  constructor(readonly reason: string, readonly request: { method: string; path: string }) {
    super(`console request refused: ${reason} (${request.method} ${request.path})`);
    this.name = "ConsoleRequestRefused";
  }
}

/** Discovery documents the client may read. */
const DISCOVERY = /^\/(api|apis|version|api\/v1)$|^\/apis\/[a-z0-9.-]+(\/[a-z0-9]+)?$/;

/** Why the request is refused, or undefined when the console may send it. */
export function refusal(req: ConsoleRequest): string | undefined {
  if (req.method.toUpperCase() !== "GET") return `method ${req.method} is not allowed (GET only)`;
  for (const [name, value] of Object.entries(req.headers ?? {})) {
    const n = name.toLowerCase();
    if (value === undefined) continue;
    if (n === "authorization") return "the Authorization header is set by the session only";
    if (n.startsWith("impersonate-")) return `Impersonate-* headers are refused (${name})`;
    if (n === "upgrade" || (n === "connection" && /upgrade/i.test(String(value)))) {
      return "connection upgrades are refused";
    }
  }
  for (const [name, value] of Object.entries(req.query ?? {})) {
    if (name.toLowerCase() === "watch" && value !== undefined && value !== null && value !== false) {
      if (String(value) !== "false" && String(value) !== "0") return "watches are refused";
    }
  }
  const raw = req.path;
  if (!raw.startsWith("/") || /[?#\\]/.test(raw) || /%2f|%5c|%00/i.test(raw)) {
    return "the path must be a plain absolute path";
  }
  let segments: string[];
  try {
    segments = raw.split("/").slice(1).map((s) => decodeURIComponent(s));
  } catch {
    return "the path is not valid percent-encoding";
  }
  if (segments.some((s) => s === "" || s === "." || s === "..") && raw !== "/") {
    return "the path must not have empty, . or .. segments";
  }
  const path = "/" + segments.join("/");
  if (DISCOVERY.test(path)) return undefined;
  // /api/v1/... or /apis/<group>/<version>/...; "core" is refused spelled as a group too.
  let rest: string[];
  if (segments[0] === "api" && segments[1] === "v1") rest = segments.slice(2);
  else if (segments[0] === "apis" && segments.length >= 3) rest = segments.slice(3);
  else return "only the API (/api, /apis) is readable";
  if (rest[0]?.toLowerCase() === "watch") return "watches are refused";
  if (rest[0]?.toLowerCase() === "proxy") return "subresources (proxy) are refused";
  // namespaces/<ns>/<resource>[/<name>] or <resource>[/<name>]; more is a subresource.
  const resource = rest[0] === "namespaces" && rest.length >= 3 ? rest.slice(2) : rest;
  if (resource.length === 0) return "only the API (/api, /apis) is readable";
  // The type word, whatever its case or a group suffix (secrets.v1., Secrets, SECRET).
  if (/^secrets?(\.|$)/i.test(resource[0]!.trim())) return "Secrets are never read by the console";
  if (resource.length > 2) return `subresources (${resource.slice(2).join("/")}) are refused`;
  if (rest[0] === "namespaces" && rest.length === 3 && /^(status|finalize)$/i.test(rest[2]!)) {
    return `subresources (${rest[2]}) are refused`;
  }
  return undefined;
}

/** Throws ConsoleRequestRefused when the console may not send the request. */
export function assertAllowed(req: ConsoleRequest): void {
  const why = refusal(req);
  if (why) throw new ConsoleRequestRefused(why, { method: req.method, path: req.path });
}
