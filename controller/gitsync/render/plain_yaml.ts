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

/** The manifests under `path` of `tree` (path -> bytes, `/`-separated, relative to the root). */
export function renderPlainYaml(tree: ReadonlyMap<string, Uint8Array>, path: string): KubeObject[] {
  const base = path.replace(/^\.?\/+/, "").replace(/\/+$/, "");
  const prefix = base ? `${base}/` : "";
  const files = [...tree.keys()]
    .filter((f) => (f.startsWith(prefix) || f === base) && MANIFEST.test(f))
    .filter((f) => !f.split("/").some((part) => part.startsWith(".")))
    .sort();
  if (base && !files.length && ![...tree.keys()].some((f) => f.startsWith(prefix))) {
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
