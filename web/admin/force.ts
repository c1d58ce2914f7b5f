/**
 * The neighbour graph's layout (tens of nodes): the shared force layout (web/shared/force_layout.ts)
 * with the root held in the middle, spread over the canvas. Deterministic, so the same graph always
 * looks the same.
 */
import { forceLayout as layoutPoints } from "../shared/force_layout.ts";

export interface LayoutNode {
  id: string;
  x: number;
  y: number;
}

export function forceLayout(
  ids: string[],
  edges: { from: string; to: string }[],
  root: string,
  size = { width: 800, height: 520 },
): Map<string, LayoutNode> {
  const index = new Map(ids.map((id, i) => [id, i]));
  const links = edges.flatMap((e) => {
    const a = index.get(e.from), b = index.get(e.to);
    return a === undefined || b === undefined ? [] : [[a, b] as const];
  });
  // Longer links and a wider reach than a vault-sized graph needs: there is room for labels.
  const pos = layoutPoints(ids.length, links, {
    linkDistance: 120,
    charge: 4000,
    cutoff: 300,
    ...(index.has(root) ? { pinned: index.get(root)! } : {}),
  });
  return fit(ids, pos, size);
}

/** Spreads the points over the canvas (at most 2.5× larger), keeping labels inside it. */
function fit(ids: string[], pos: Float64Array, size: { width: number; height: number }) {
  const pad = { x: 90, y: 50 };
  let minX = Infinity, maxX = -Infinity, minY = Infinity, maxY = -Infinity;
  for (let i = 0; i < ids.length; i++) {
    minX = Math.min(minX, pos[2 * i]!);
    maxX = Math.max(maxX, pos[2 * i]!);
    minY = Math.min(minY, pos[2 * i + 1]!);
    maxY = Math.max(maxY, pos[2 * i + 1]!);
  }
  const scale = Math.min(
    2.5,
    (size.width - 2 * pad.x) / Math.max(1, maxX - minX),
    (size.height - 2 * pad.y) / Math.max(1, maxY - minY),
  );
  const cx = (minX + maxX) / 2, cy = (minY + maxY) / 2;
  return new Map(ids.map((id, i) => [id, {
    id,
    x: size.width / 2 + (pos[2 * i]! - cx) * scale,
    y: size.height / 2 + (pos[2 * i + 1]! - cy) * scale,
  }]));
}
