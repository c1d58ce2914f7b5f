/**
 * A small force-directed layout for neighbour graphs (tens of nodes): springs along edges,
 * repulsion between every pair, a pull to the centre; the root is pinned in the middle. Runs a
 * fixed number of steps from a deterministic start, so the same graph always looks the same.
 */
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
  steps = 300,
): Map<string, LayoutNode> {
  const cx = size.width / 2;
  const cy = size.height / 2;
  const nodes = ids.map((id, i) => {
    const angle = (i / Math.max(1, ids.length)) * Math.PI * 2;
    const r = id === root ? 0 : 120 + (i % 3) * 40;
    return { id, x: cx + Math.cos(angle) * r, y: cy + Math.sin(angle) * r, vx: 0, vy: 0 };
  });
  const index = new Map(nodes.map((n) => [n.id, n]));
  const links = edges.map((e) => [index.get(e.from), index.get(e.to)]).filter(([a, b]) => a && b) as [
    typeof nodes[number],
    typeof nodes[number],
  ][];
  const spring = 150;
  for (let step = 0; step < steps; step++) {
    const cool = 1 - step / steps;
    for (let i = 0; i < nodes.length; i++) {
      const a = nodes[i]!;
      for (let j = i + 1; j < nodes.length; j++) {
        const b = nodes[j]!;
        let dx = a.x - b.x;
        let dy = a.y - b.y;
        let d2 = dx * dx + dy * dy;
        if (d2 < 1) {
          dx = (i - j) * 0.5;
          dy = 0.5;
          d2 = dx * dx + dy * dy;
        }
        const f = 9000 / d2;
        const d = Math.sqrt(d2);
        a.vx += (dx / d) * f;
        a.vy += (dy / d) * f;
        b.vx -= (dx / d) * f;
        b.vy -= (dy / d) * f;
      }
    }
    for (const [a, b] of links) {
      const dx = b.x - a.x;
      const dy = b.y - a.y;
      const d = Math.max(1, Math.sqrt(dx * dx + dy * dy));
      const f = (d - spring) * 0.05;
      a.vx += (dx / d) * f;
      a.vy += (dy / d) * f;
      b.vx -= (dx / d) * f;
      b.vy -= (dy / d) * f;
    }
    for (const n of nodes) {
      n.vx += (cx - n.x) * 0.01;
      n.vy += (cy - n.y) * 0.01;
      if (n.id === root) {
        n.x = cx;
        n.y = cy;
      } else {
        n.x += Math.max(-20, Math.min(20, n.vx * cool));
        n.y += Math.max(-20, Math.min(20, n.vy * cool));
        n.x = Math.max(30, Math.min(size.width - 30, n.x));
        n.y = Math.max(30, Math.min(size.height - 30, n.y));
      }
      n.vx *= 0.5;
      n.vy *= 0.5;
    }
  }
  return fit(nodes, size);
}

/** Spreads the result over the canvas (at most 2.5× larger), keeping labels inside it. */
function fit(nodes: { id: string; x: number; y: number }[], size: { width: number; height: number }) {
  const pad = { x: 90, y: 50 };
  const xs = nodes.map((n) => n.x);
  const ys = nodes.map((n) => n.y);
  const [minX, maxX, minY, maxY] = [Math.min(...xs), Math.max(...xs), Math.min(...ys), Math.max(...ys)];
  const scale = Math.min(
    2.5,
    (size.width - 2 * pad.x) / Math.max(1, maxX - minX),
    (size.height - 2 * pad.y) / Math.max(1, maxY - minY),
  );
  const cx = (minX + maxX) / 2;
  const cy = (minY + maxY) / 2;
  return new Map(nodes.map((n) => [n.id, {
    id: n.id,
    x: size.width / 2 + (n.x - cx) * scale,
    y: size.height / 2 + (n.y - cy) * scale,
  }]));
}
