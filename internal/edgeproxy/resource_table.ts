/** `edgectl get` documents: kubectl's tables (NAMESPACE with -A, NAME, the type's columns, AGE) and List documents. */
import type { Cell } from "../cli/mod.ts";
import { formatAge } from "../k8s/table.ts";
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
