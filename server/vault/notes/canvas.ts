/**
 * JSON Canvas 1.0 (`.canvas` files), validated with zod before anything is written: nodes of type
 * text, file, link and group with integer geometry, edges between existing nodes, ids unique across
 * nodes and edges, colors a preset `"1"`-`"6"` or `#rgb`/`#rrggbb`. Unknown properties are kept
 * (the format allows extensions). Array order is z-order and is preserved.
 */
import { z } from "zod";
import { InvalidCanvasError } from "./errors.ts";

const color = z.string().regex(/^([1-6]|#[0-9a-fA-F]{3}|#[0-9a-fA-F]{6})$/, "a preset 1-6 or a hex color");
const side = z.enum(["top", "right", "bottom", "left"]);
const end = z.enum(["none", "arrow"]);

const base = {
  id: z.string().min(1),
  x: z.number().int(),
  y: z.number().int(),
  width: z.number().int(),
  height: z.number().int(),
  color: color.optional(),
};

const node = z.discriminatedUnion("type", [
  z.looseObject({ ...base, type: z.literal("text"), text: z.string() }),
  z.looseObject({
    ...base,
    type: z.literal("file"),
    file: z.string().min(1),
    subpath: z.string().startsWith("#").optional(),
  }),
  z.looseObject({ ...base, type: z.literal("link"), url: z.string().min(1) }),
  z.looseObject({
    ...base,
    type: z.literal("group"),
    label: z.string().optional(),
    background: z.string().optional(),
    backgroundStyle: z.enum(["cover", "ratio", "repeat"]).optional(),
  }),
]);

const edge = z.looseObject({
  id: z.string().min(1),
  fromNode: z.string().min(1),
  fromSide: side.optional(),
  fromEnd: end.optional(),
  toNode: z.string().min(1),
  toSide: side.optional(),
  toEnd: end.optional(),
  color: color.optional(),
  label: z.string().optional(),
});

export const canvasSchema = z.looseObject({
  nodes: z.array(node).optional(),
  edges: z.array(edge).optional(),
}).superRefine((doc, ctx) => {
  const ids = new Set<string>();
  const nodeIds = new Set<string>();
  (doc.nodes ?? []).forEach((n, i) => {
    if (ids.has(n.id)) {
      ctx.addIssue({ code: "custom", path: ["nodes", i, "id"], message: `duplicate id ${n.id}` });
    }
    ids.add(n.id);
    nodeIds.add(n.id);
  });
  (doc.edges ?? []).forEach((e, i) => {
    if (ids.has(e.id)) {
      ctx.addIssue({ code: "custom", path: ["edges", i, "id"], message: `duplicate id ${e.id}` });
    }
    ids.add(e.id);
    for (const key of ["fromNode", "toNode"] as const) {
      if (!nodeIds.has(e[key])) {
        ctx.addIssue({ code: "custom", path: ["edges", i, key], message: `no node with id ${e[key]}` });
      }
    }
  });
});

export type Canvas = z.infer<typeof canvasSchema>;

/** Parses and validates canvas text; throws `InvalidCanvasError` with every issue. */
export function parseCanvas(text: string): Canvas {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new InvalidCanvasError([{ path: [], message: `not JSON: ${(err as Error).message}` }]);
  }
  const r = canvasSchema.safeParse(json);
  if (!r.success) {
    throw new InvalidCanvasError(
      r.error.issues.map((i) => ({
        path: i.path.map((p) => (typeof p === "number" ? p : String(p))),
        message: i.message,
      })),
    );
  }
  return r.data;
}

/** Canvas text as Obsidian writes it (tab-indented JSON). */
export function formatCanvas(canvas: Canvas): string {
  return JSON.stringify(canvas, null, "\t");
}
