import { createHash } from "node:crypto";

/**
 * JSON with object keys sorted at every level, so the same entry gives the same text whichever
 * order a format or an editor put its keys in. Values that are not JSON (TOML dates) use their toJSON.
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v) => {
    if (v === null || typeof v !== "object" || Array.isArray(v)) return v;
    return Object.fromEntries(Object.keys(v).sort().map((k) => [k, v[k]]));
  });
}

/**
 * SHA-256 (hex) of one entry's canonical JSON. Drift is judged on our entry alone, never on the whole
 * file: hosts such as Claude Code rewrite their config constantly (startup counters, project lists).
 */
export function entryHash(entry: unknown): string {
  return createHash("sha256").update(canonicalJson(entry)).digest("hex");
}
