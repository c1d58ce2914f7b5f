/**
 * The force-directed layout of the web apps' graphs (the vault's graph view, memsvc's neighbour
 * graph), small enough to write here rather than add d3-force:
 * nodes start on a phyllotaxis spiral (deterministic, so the same vault draws the same way), then
 * repel each other, links pull like springs and a weak gravity keeps islands in view. Repulsion only
 * reaches `cutoff`, found through a grid of cells that size, so one step is about linear in the
 * number of nodes and a 1,000-note vault lays out in a fraction of a second.
 *
 * @example
 * const pos = forceLayout(3, [[0, 1], [1, 2]]); // pos[2 * i], pos[2 * i + 1] = x, y of node i
 */
export interface LayoutOptions {
  iterations?: number;
  /** Rest length of a link. */
  linkDistance?: number;
  /** Strength of the repulsion between two nodes. */
  charge?: number;
  /** Repulsion does not reach further than this. */
  cutoff?: number;
  /** A node held at (0, 0), the rest arranged around it (a neighbour graph's root). */
  pinned?: number;
}

/** A layout in progress: `pos` holds x, y of each node, interleaved, and changes with each step. */
export interface Layout {
  pos: Float64Array;
  /** Runs one step; false once the layout is done. */
  step(): boolean;
}

/** x, y of each node, interleaved, centred on (0, 0). */
export function forceLayout(
  count: number,
  links: readonly (readonly [number, number])[],
  options: LayoutOptions = {},
): Float64Array {
  const layout = startLayout(count, links, options);
  while (layout.step());
  const pos = layout.pos;
  let mx = 0, my = 0;
  for (let i = 0; i < count; i++) {
    mx += pos[2 * i]!;
    my += pos[2 * i + 1]!;
  }
  if (count) {
    for (let i = 0; i < count; i++) {
      pos[2 * i]! -= mx / count;
      pos[2 * i + 1]! -= my / count;
    }
  }
  return pos;
}

/** A layout to run step by step (the view runs a few steps per frame, so the page stays responsive). */
export function startLayout(
  count: number,
  links: readonly (readonly [number, number])[],
  { iterations = count > 500 ? 150 : 250, linkDistance = 50, charge = 900, cutoff = 100, pinned }:
    LayoutOptions = {},
): Layout {
  const pos = new Float64Array(count * 2);
  const vel = new Float64Array(count * 2);
  const golden = Math.PI * (3 - Math.sqrt(5));
  for (let i = 0; i < count; i++) {
    const r = 12 * Math.sqrt(i + 0.5);
    pos[2 * i] = r * Math.cos(i * golden);
    pos[2 * i + 1] = r * Math.sin(i * golden);
  }
  const hold = () => {
    if (pinned === undefined || pinned < 0 || pinned >= count) return;
    pos[2 * pinned] =
      pos[2 * pinned + 1] =
      vel[2 * pinned] =
      vel[2 * pinned + 1] =
        0;
  };
  hold();
  const degree = new Float64Array(count);
  for (const [a, b] of links) {
    degree[a]!++;
    degree[b]!++;
  }
  const cutoff2 = cutoff * cutoff;
  // The grid, rebuilt each step by counting sort: node indices ordered by cell, and where each cell starts.
  const cellOf = new Int32Array(count);
  const order = new Int32Array(count);
  let start = new Int32Array(0);

  let done = 0;
  const step = () => {
    if (done >= iterations) return false;
    const alpha = 1 - done++ / iterations;
    const [x0, y0, x1, y1] = bounds(pos);
    const gw = Math.floor((x1 - x0) / cutoff) + 1, gh = Math.floor((y1 - y0) / cutoff) + 1;
    if (start.length < gw * gh + 1) start = new Int32Array(gw * gh + 1);
    start.fill(0, 0, gw * gh + 1);
    for (let i = 0; i < count; i++) {
      const c = Math.floor((pos[2 * i]! - x0) / cutoff) + Math.floor((pos[2 * i + 1]! - y0) / cutoff) * gw;
      cellOf[i] = c;
      start[c + 1]!++;
    }
    for (let c = 0; c < gw * gh; c++) start[c + 1]! += start[c]!;
    const fill = start.slice(0, gw * gh);
    for (let i = 0; i < count; i++) order[fill[cellOf[i]!]!++] = i;
    // Repulsion between nodes in the same and neighbouring cells.
    for (let i = 0; i < count; i++) {
      const x = pos[2 * i]!, y = pos[2 * i + 1]!;
      const cx = cellOf[i]! % gw, cy = Math.floor(cellOf[i]! / gw);
      let fx = 0, fy = 0;
      for (let ny = Math.max(0, cy - 1); ny <= Math.min(gh - 1, cy + 1); ny++) {
        const from = start[ny * gw + Math.max(0, cx - 1)]!,
          to = start[ny * gw + Math.min(gw - 1, cx + 1) + 1]!;
        for (let k = from; k < to; k++) {
          const j = order[k]!;
          if (j === i) continue;
          let ox = x - pos[2 * j]!, oy = y - pos[2 * j + 1]!;
          let d2 = ox * ox + oy * oy;
          if (d2 > cutoff2) continue;
          if (d2 < 0.01) {
            // Two nodes on one spot: part them in a direction fixed by their indices.
            ox = Math.cos(i + j);
            oy = Math.sin(i + j);
            d2 = 1;
          }
          const f = charge / d2;
          fx += ox * f;
          fy += oy * f;
        }
      }
      vel[2 * i]! += fx * alpha * 0.1;
      vel[2 * i + 1]! += fy * alpha * 0.1;
    }
    // Links as springs, weaker on nodes with many links (as d3-force does) so hubs do not collapse.
    for (const [a, b] of links) {
      if (a === b) continue;
      const ox = pos[2 * b]! - pos[2 * a]!, oy = pos[2 * b + 1]! - pos[2 * a + 1]!;
      const d = Math.sqrt(ox * ox + oy * oy) || 1;
      const f = ((d - linkDistance) / d) * alpha * 0.3;
      const wa = 1 / Math.min(degree[a]!, degree[b]!);
      vel[2 * a]! += ox * f * wa;
      vel[2 * a + 1]! += oy * f * wa;
      vel[2 * b]! -= ox * f * wa;
      vel[2 * b + 1]! -= oy * f * wa;
    }
    for (let i = 0; i < count * 2; i++) {
      vel[i]! -= pos[i]! * 0.01 * alpha; // gravity
      vel[i]! *= 0.6; // friction
      // A cap keeps a close pair from flinging each other out of the picture.
      pos[i]! += Math.max(-30, Math.min(30, vel[i]!));
    }
    hold();
    return done < iterations;
  };
  return { pos, step };
}

/** The smallest box around the nodes: [minX, minY, maxX, maxY]. */
export function bounds(pos: Float64Array): [number, number, number, number] {
  if (pos.length === 0) return [-1, -1, 1, 1];
  let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
  for (let i = 0; i < pos.length; i += 2) {
    x0 = Math.min(x0, pos[i]!);
    x1 = Math.max(x1, pos[i]!);
    y0 = Math.min(y0, pos[i + 1]!);
    y1 = Math.max(y1, pos[i + 1]!);
  }
  return [x0, y0, x1, y1];
}
