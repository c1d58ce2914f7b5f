/**
 * The plain YAML renderer (seed section 1.2): every .yaml, .yml and .json file under the
 * Application's path in the checked-out tree, folders recursively, in a fixed order (paths sorted,
 * then documents in file order), each document one object; `kind: List` documents are expanded as
 * kubectl does. Empty documents are skipped; a document that is not a Kubernetes object fails the
 * render naming the file and the document. Hidden files and `.gitsync.yaml` (discovery config) are
 * not manifests.
 */
import { parseAllDocuments } from "yaml";
import type { KubeObject } from "../../../internal/k8s/mod.ts";
import { RenderFailure } from "./failure.ts";

const MANIFEST = /\.(ya?ml|json)$/i;

/**
 * A commit tree's paths, sorted, once per tree: the trees are shared by every Application of a
 * Repository, so finding one Application's folder by scanning every path made rendering N
 * Applications from one repository cost N² (10,000 paths a render at 1,000 Applications).
 */
const sortedPaths = new WeakMap<ReadonlyMap<string, Uint8Array>, string[]>();

/** The paths of `tree` that start with `prefix`, sorted (a binary search, then a scan of the matches). */
function pathsUnder(tree: ReadonlyMap<string, Uint8Array>, prefix: string): string[] {
  let paths = sortedPaths.get(tree);
  if (!paths) sortedPaths.set(tree, paths = [...tree.keys()].sort());
  let lo = 0;
  let hi = paths.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (paths[mid]! < prefix) lo = mid + 1;
    else hi = mid;
  }
  const out: string[] = [];
  for (let i = lo; i < paths.length && paths[i]!.startsWith(prefix); i++) out.push(paths[i]!);
  return out;
}

/** The manifests under `path` of `tree` (path -> bytes, `/`-separated, relative to the root). */
export function renderPlainYaml(tree: ReadonlyMap<string, Uint8Array>, path: string): KubeObject[] {
  const base = path.replace(/^\.?\/+/, "").replace(/\/+$/, "");
  const prefix = base ? `${base}/` : "";
  const under = pathsUnder(tree, prefix);
  const files = [...(base && tree.has(base) ? [base] : []), ...under]
    .filter((f) => MANIFEST.test(f))
    .filter((f) => !f.split("/").some((part) => part.startsWith(".")))
    .sort();
  if (base && !files.length && !under.length) {
    throw new RenderFailure(`path ${base} does not exist in the repository`);
  }
  return files.flatMap((file) => parseManifests(new TextDecoder().decode(tree.get(file)), file));
}

/** The objects of one multi-document YAML (or JSON) text; `file` names it in errors. */
export function parseManifests(text: string, file: string): KubeObject[] {
  const objects: KubeObject[] = [];
  parseAllDocuments(text).forEach((doc, i) => {
    if (doc.errors.length) {
      throw new RenderFailure(`${file}: document ${i + 1}: ${doc.errors[0]!.message.split("\n")[0]}`);
    }
    const value = doc.toJS({ maxAliasCount: 100 }) as unknown;
    if (value === null || value === undefined) return;
    for (const o of expand(value, file, i)) objects.push(o);
  });
  return objects;
}

function expand(value: unknown, file: string, index: number): KubeObject[] {
  const where = `${file}: document ${index + 1}`;
  if (typeof value !== "object" || Array.isArray(value)) {
    throw new RenderFailure(`${where} is not a Kubernetes object`);
  }
  const o = value as KubeObject;
  if (o.kind === "List" && Array.isArray(o.items)) {
    return (o.items as unknown[]).flatMap((item) => expand(item, file, index));
  }
  if (typeof o.apiVersion !== "string" || !o.apiVersion || typeof o.kind !== "string" || !o.kind) {
    throw new RenderFailure(`${where} has no apiVersion or kind`);
  }
  if (typeof o.metadata?.name !== "string" || !o.metadata.name) {
    throw new RenderFailure(`${where} (${o.kind}) has no metadata.name`);
  }
  return [o];
}
