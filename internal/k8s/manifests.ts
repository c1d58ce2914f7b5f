/**
 * Reads `-f` inputs as kubectl does: a file, a directory (its *.yaml, *.yml and *.json files, sorted,
 * not recursive unless asked), or `-` for stdin. YAML files may hold several documents; empty
 * documents are skipped; a `kind: List` (or any `*List` with items) is expanded into its items.
 * Every error names the file and the document's index (1-based, like the `---` sections).
 *
 *   const docs = await readManifests(flags.filename);   // [{ source, index, object }]
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { extname, join } from "node:path";
import { parseAllDocuments } from "yaml";
import { ManifestError } from "./errors.ts";
import type { KubeObject } from "./resources.ts";

export interface Manifest {
  /** File path, or "<stdin>". */
  source: string;
  /** 1-based document number within the source. */
  index: number;
  object: KubeObject;
}

const EXTENSIONS = new Set([".yaml", ".yml", ".json"]);

export interface ReadManifestsOptions {
  /** Walk directories recursively (kubectl -R). */
  recursive?: boolean;
  /** Reads all of stdin for `-` (default: process.stdin). */
  readStdin?: () => Promise<string>;
}

async function readProcessStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(Buffer.from(chunk as Uint8Array));
  return Buffer.concat(chunks).toString("utf8");
}

function listDir(dir: string, recursive: boolean): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    const st = statSync(path);
    if (st.isDirectory()) {
      if (recursive) out.push(...listDir(path, true));
    } else if (EXTENSIONS.has(extname(name).toLowerCase())) out.push(path);
  }
  return out;
}

/** Reads every input in order; stdin (`-`) at most once. */
export async function readManifests(
  inputs: readonly string[],
  options: ReadManifestsOptions = {},
): Promise<Manifest[]> {
  if (inputs.length === 0) throw new ManifestError("no manifests given: pass -f <file|directory|->");
  const out: Manifest[] = [];
  let stdinRead = false;
  for (const input of inputs) {
    if (input === "-") {
      if (stdinRead) throw new ManifestError("stdin (-) can be given only once");
      stdinRead = true;
      out.push(...parseManifests(await (options.readStdin ?? readProcessStdin)(), "<stdin>"));
      continue;
    }
    let st;
    try {
      st = statSync(input);
    } catch {
      throw new ManifestError(`the path "${input}" does not exist`);
    }
    if (st.isDirectory()) {
      const files = listDir(input, options.recursive ?? false);
      if (files.length === 0) {
        throw new ManifestError(`no .yaml, .yml or .json files in directory "${input}"`);
      }
      for (const f of files) out.push(...parseManifests(readFileSync(f, "utf8"), f));
    } else {
      out.push(...parseManifests(readFileSync(input, "utf8"), input));
    }
  }
  return out;
}

function checkObject(value: unknown, where: string): KubeObject {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new ManifestError(`${where}: a manifest must be a mapping with apiVersion and kind`);
  }
  const obj = value as KubeObject;
  const missing = ["apiVersion", "kind"].filter((k) => typeof obj[k] !== "string" || !obj[k]);
  if (missing.length) throw new ManifestError(`${where}: ${missing.join(" and ")} not set`);
  return obj;
}

/** Parses one source's text (YAML stream or JSON) into manifests. */
export function parseManifests(text: string, source: string): Manifest[] {
  const out: Manifest[] = [];
  const docs = parseAllDocuments(text);
  const list = Array.isArray(docs) ? docs : [docs];
  list.forEach((doc, i) => {
    const index = i + 1;
    const where = `${source} (document ${index})`;
    const err = doc.errors[0];
    if (err) {
      const line = err.linePos?.[0] ? ` line ${err.linePos[0].line}` : "";
      throw new ManifestError(`${where}${line}: invalid YAML: ${err.message.split("\n")[0]}`);
    }
    const value = doc.toJS({ maxAliasCount: 100 });
    if (value === null || value === undefined) return;
    const obj = checkObject(value, where);
    if (String(obj.kind).endsWith("List") && Array.isArray(obj.items)) {
      (obj.items as unknown[]).forEach((item, j) => {
        out.push({ source, index, object: checkObject(item, `${where} item ${j + 1}`) });
      });
      return;
    }
    out.push({ source, index, object: obj });
  });
  return out;
}
