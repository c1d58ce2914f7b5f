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

export function parseFrontMatter(text: string): FrontMatter {
  const end = frontMatterEnd(text);
  if (end === 0) return { data: {}, bodyStart: 0 };
  const raw = text.slice(text.indexOf("\n") + 1, end).replace(/^(?:---|\.\.\.)[ \t]*\r?\n?$/m, "");
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
