/** YAML front matter: parsed leniently, since a note with broken YAML must still open. */
import { parse } from "yaml";
import { frontMatterEnd } from "./mask_code.ts";

export interface FrontMatter {
  /** The mapping, or `{}` when there is none or it is not a mapping. */
  data: Record<string, unknown>;
  /** Offset where the body starts. */
  bodyStart: number;
  /** Set when the block is there but is not valid YAML (a one-line reason). */
  error?: string;
}

// The common shapes of note front matter (`key: word`, `key: [a, b]`, `key:` + `- a` lines) are read
// directly: the yaml package costs ~0.1 ms a note, most of building a 10,000-note index. Anything
// else (quotes with escapes, comments, nesting, anchors, multi-line scalars) goes to the yaml package.
// front_matter_test.ts checks both give the same result.
const KEY_LINE = /^([A-Za-z_][A-Za-z0-9_-]*):(?:[ \t]+(.*?))?[ \t]*$/;
const ITEM_LINE = /^[ \t]*- (.*?)[ \t]*$/;
const PLAIN = /^[A-Za-z0-9_][A-Za-z0-9 _.\-\/+()]*$/;
const INT = /^[-+]?[0-9]+$/;
const FLOAT = /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$/;

/** A scalar as YAML 1.2's core schema reads it, or NO when it is not one this fast path handles. */
function scalar(raw: string): unknown {
  if (raw.length >= 2 && raw[0] === '"' && raw.endsWith('"') && !/["\\]/.test(raw.slice(1, -1))) {
    return raw.slice(1, -1);
  }
  if (raw.length >= 2 && raw[0] === "'" && raw.endsWith("'") && !raw.slice(1, -1).includes("'")) {
    return raw.slice(1, -1);
  }
  if (INT.test(raw) || FLOAT.test(raw)) return Number(raw);
  if (!PLAIN.test(raw) || raw.endsWith(" ")) return NO;
  if (/^(?:null|Null|NULL)$/.test(raw)) return null;
  if (/^(?:true|True|TRUE)$/.test(raw)) return true;
  if (/^(?:false|False|FALSE)$/.test(raw)) return false;
  if (/^0o[0-7]+$/.test(raw)) return parseInt(raw.slice(2), 8);
  if (/^0x[0-9a-fA-F]+$/.test(raw)) return parseInt(raw.slice(2), 16);
  return raw;
}

const NO = Symbol("not simple");

/** The mapping, or undefined when the block needs the full YAML parser. */
export function parseSimpleYaml(raw: string): Record<string, unknown> | undefined {
  const data: Record<string, unknown> = {};
  // The key written as `key:` alone just before, which `- item` lines turn into a list.
  let open: { key: string; items: unknown[] } | undefined;
  for (const line of raw.split("\n")) {
    const l = line.endsWith("\r") ? line.slice(0, -1) : line;
    if (l.trim() === "") {
      if (open?.items.length) return undefined; // a blank line inside a block list: leave it to the parser
      continue;
    }
    const item = ITEM_LINE.exec(l);
    if (item) {
      if (!open) return undefined;
      const v = scalar(item[1]!);
      if (v === NO) return undefined;
      open.items.push(v);
      data[open.key] = open.items;
      continue;
    }
    const kv = KEY_LINE.exec(l);
    if (!kv || kv[1] === "__proto__" || Object.hasOwn(data, kv[1]!)) return undefined;
    const key = kv[1]!;
    const value = kv[2] ?? "";
    open = undefined;
    if (value === "") {
      data[key] = null;
      open = { key, items: [] };
    } else if (value.startsWith("[")) {
      if (!value.endsWith("]")) return undefined;
      const inner = value.slice(1, -1).trim();
      const items = inner === "" ? [] : inner.split(",").map((x) => scalar(x.trim()));
      if (items.includes(NO)) return undefined;
      data[key] = items;
    } else {
      const v = value === "~" ? null : scalar(value);
      if (v === NO) return undefined;
      data[key] = v;
    }
  }
  return data;
}

export function parseFrontMatter(text: string): FrontMatter {
  const end = frontMatterEnd(text);
  if (end === 0) return { data: {}, bodyStart: 0 };
  const raw = text.slice(text.indexOf("\n") + 1, end).replace(/^(?:---|\.\.\.)[ \t]*\r?\n?$/m, "");
  const simple = parseSimpleYaml(raw);
  if (simple) return { data: simple, bodyStart: end };
  try {
    const data = parse(raw, { maxAliasCount: 50 }) as unknown;
    if (data === null || data === undefined) return { data: {}, bodyStart: end };
    if (typeof data !== "object" || Array.isArray(data)) {
      return { data: {}, bodyStart: end, error: "front matter is not a mapping" };
    }
    return { data: data as Record<string, unknown>, bodyStart: end };
  } catch (err) {
    return { data: {}, bodyStart: end, error: String((err as Error).message).split("\n")[0] };
  }
}

/** A front matter list field that may be written as a list or as a comma/space separated string. */
export function listField(data: Record<string, unknown>, ...keys: string[]): string[] {
  const out: string[] = [];
  for (const key of keys) {
    const v = data[key];
    const items = Array.isArray(v) ? v : typeof v === "string" ? v.split(/[,\s]+/) : [];
    for (const item of items) {
      if (typeof item === "string" || typeof item === "number") {
        const s = String(item).trim();
        if (s) out.push(s);
      }
    }
  }
  return out;
}
