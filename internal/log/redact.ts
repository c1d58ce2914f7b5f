/**
 * Redaction applied to everything a logger writes. Two layers: values under sensitive keys are
 * replaced whole, and every string is scrubbed of credential patterns, because secrets also hide
 * in messages, URLs and error texts where no key names them.
 */

export const REDACTED = "[REDACTED]";

/**
 * Keys whose values are never logged: Authorization, Cookie and Set-Cookie headers, password
 * fields, secrets, tokens and API keys. Matching ignores case and separators, and looks at the
 * end of the key so `newPassword`, `cookieSecret` and `accessToken` match while `tokenHash`
 * (an identifier, not a credential) does not.
 */
const SENSITIVE_KEY = /(authorization|cookie|password|passwd|secret|token|apikey|credentials?)$/;

export function isSensitiveKey(key: string): boolean {
  return SENSITIVE_KEY.test(key.toLowerCase().replace(/[^a-z0-9]/g, ""));
}

const STRING_PATTERNS: ReadonlyArray<[RegExp, string]> = [
  // Any bearer credential, whatever its format.
  [/\b(Bearer)\s+[^\s,;"'`]+/gi, `$1 ${REDACTED}`],
  // Our own token formats: API tokens (nm_) and session bearers (ns_), wherever they appear.
  [/\b(nm|ns)_[A-Za-z0-9_-]{6,}/g, `$1_${REDACTED}`],
  // user:password@ in URLs (postgres://app:hunter2@db/x).
  [/\b([a-z][a-z0-9+.-]*:\/\/)([^/\s:@]+):([^/\s@]+)@/gi, `$1$2:${REDACTED}@`],
];

export function redactString(s: string): string {
  let out = s;
  for (const [pattern, replacement] of STRING_PATTERNS) out = out.replace(pattern, replacement);
  return out;
}

const MAX_DEPTH = 8;

/** Returns a JSON-safe copy of `value` with secrets removed. Errors keep name, message and stack. */
export function redact(value: unknown, depth = 0, seen = new WeakSet<object>()): unknown {
  if (typeof value === "string") return redactString(value);
  if (typeof value === "bigint") return value.toString();
  if (value === null || typeof value !== "object") {
    return typeof value === "function" || typeof value === "symbol" ? String(value) : value;
  }
  if (seen.has(value)) return "[Circular]";
  if (depth >= MAX_DEPTH) return "[Truncated]";
  seen.add(value);
  if (value instanceof Date) return value.toISOString();
  if (value instanceof Error) return redactError(value, depth, seen);
  if (value instanceof Headers) return redactEntries([...value.entries()], depth, seen);
  if (value instanceof URL) return redactString(value.href);
  if (Array.isArray(value)) return value.map((v) => redact(v, depth + 1, seen));
  return redactEntries(Object.entries(value), depth, seen);
}

function redactEntries(entries: [string, unknown][], depth: number, seen: WeakSet<object>) {
  const out: Record<string, unknown> = {};
  for (const [k, v] of entries) {
    out[k] = isSensitiveKey(k) && v !== undefined && v !== null ? REDACTED : redact(v, depth + 1, seen);
  }
  return out;
}

function redactError(err: Error, depth: number, seen: WeakSet<object>) {
  const out: Record<string, unknown> = { name: err.name, message: redactString(err.message) };
  if (err.stack) out.stack = redactString(err.stack);
  const { cause } = err as { cause?: unknown };
  if (cause !== undefined) out.cause = redact(cause, depth + 1, seen);
  return out;
}
