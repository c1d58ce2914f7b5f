/**
 * gitsync's one redaction (seed sections 5.6 and 8): every text the controller and its CLI show — plans,
 * status, Events, logs, metrics labels, notifications, diagnosis, render output — goes through
 * `redact`, and every rendered object through `redactObject`. What it removes:
 *
 * - credentials in URLs: `https://user:token@host` and `https://token@host` become `https://REDACTED@host`;
 * - bearer tokens (`Bearer <anything>`), as the shared log redaction does;
 * - password assignments: `password=...`, `PASSWORD: ...`, `db_passwd="..."` keep the key, lose the value
 *   (quotes kept, so JSON stays JSON);
 * - in objects: a Secret's `data` and `stringData` values, the value of any field whose name ends in
 *   password, passwd or pwd, and the above in every string.
 */
import { redactString } from "../../internal/log/redact.ts";
import type { KubeObject } from "../../internal/k8s/mod.ts";

export const REDACTED = "REDACTED";

const PATTERNS: ReadonlyArray<[RegExp, string]> = [
  // scheme://userinfo@ — with or without a password part; userinfo has no "/", whitespace or "@".
  [/\b([a-z][a-z0-9+.-]*:\/\/)[^/\s@]+@/gi, `$1${REDACTED}@`],
  // key=value or key: value on one line, where the key ends in password, passwd or pwd.
  [
    /\b([A-Za-z0-9_.-]*(?:password|passwd|pwd))(["']?[ \t]*[=:][ \t]*)(["']?)(?:(?<=")[^"\n]*"|(?<=')[^'\n]*'|[^\s"',;&]+)/gi,
    `$1$2$3${REDACTED}$3`,
  ],
];

const PASSWORD_KEY = /(password|passwd|pwd)$/i;

export function redact(text: string): string {
  let out = redactString(text);
  for (const [pattern, replacement] of PATTERNS) out = out.replace(pattern, replacement);
  return out;
}

function redactValue(value: unknown, key = ""): unknown {
  if (typeof value === "string") return PASSWORD_KEY.test(key) ? REDACTED : redact(value);
  if (Array.isArray(value)) return value.map((v) => redactValue(v));
  if (value && typeof value === "object") {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, redactValue(v, k)]));
  }
  return value;
}

/** A copy of `o` fit to show: Secret values replaced (keys kept), every string redacted. */
export function redactObject(o: KubeObject): KubeObject {
  const out = redactValue(o) as KubeObject;
  if (o.kind !== "Secret" || o.apiVersion !== "v1") return out;
  const hide = (d: unknown) =>
    d && typeof d === "object" ? Object.fromEntries(Object.keys(d).map((k) => [k, REDACTED])) : d;
  return {
    ...out,
    ...(o.data !== undefined ? { data: hide(o.data) } : {}),
    ...(o.stringData !== undefined ? { stringData: hide(o.stringData) } : {}),
  };
}
