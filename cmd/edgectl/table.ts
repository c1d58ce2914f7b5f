/** `edgectl get` documents: kubectl's tables (NAMESPACE with -A, NAME, the type's columns, AGE) and List documents. */
import type { Cell } from "../../internal/cli/mod.ts";
import { formatAge } from "../../internal/k8s/mod.ts";
import type { KubeObject, ResourceType } from "./resources.ts";

export interface Table {
  headers: string[];
  rows: Cell[][];
}

export function resourceTable(
  type: ResourceType,
  objects: readonly KubeObject[],
  options: { allNamespaces: boolean; now: Date },
): Table {
  const headers = [
    ...(options.allNamespaces ? ["NAMESPACE"] : []),
    "NAME",
    ...type.columns.map((c) => c.header),
    "AGE",
  ];
  const rows = objects.map((object) => [
    ...(options.allNamespaces ? [object.metadata?.namespace] : []),
    object.metadata?.name,
    ...type.columns.map((c) => c.cell(object)),
    age(object, options.now),
  ]);
  return { headers, rows };
}

function age(object: KubeObject, now: Date): string {
  return formatAge(object.metadata?.creationTimestamp, now);
}

/** kubectl's list document for -o json|yaml: `{apiVersion: v1, items, kind: List, metadata: {resourceVersion: ""}}`. */
export function listDocument(objects: readonly KubeObject[]) {
  return {
    apiVersion: "v1",
    items: objects.map(withoutManagedFields),
    kind: "List",
    metadata: { resourceVersion: "" },
  };
}

/** Objects as -o json|yaml prints them: without metadata.managedFields, as kubectl hides them by default. */
export function withoutManagedFields(object: KubeObject): KubeObject {
  if (!object.metadata || !("managedFields" in object.metadata)) return object;
  const { managedFields: _, ...metadata } = object.metadata;
  return { ...object, metadata };
}
