/**
 * The rules of ../shared/ARCHITECTURE.md's layout, checked over the real module graph (`deno info --json`
 * over every product module) and the TypeScript syntax tree, not by grepping import lines: arrows point
 * down only (cmd → server, controller → internal; web imports server code as types only), no import
 * cycles, no file over 700 lines without a reason at its top, no function over 150 lines in controller/
 * and server/. Each rule returns its violations as stable keys (what an allowlist names) with a message.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import ts from "typescript";

export interface Violation {
  /** Stable across unrelated edits: what an allowlist entry names. */
  key: string;
  message: string;
}

export interface Edge {
  from: string;
  to: string;
  /** A value import (static or dynamic); false for `import type`, which is erased before anything runs. */
  runtime: boolean;
  dynamic: boolean;
}

/** Product code: what ships in the binaries and the scripts that build and measure them. */
export const PRODUCT_DIRS = ["cmd", "internal", "server", "controller", "web", "scripts"] as const;

const SOURCE = /\.(ts|tsx|mts|cts|js|cjs|mjs|css|sh)$/;
const MODULE = /\.(ts|tsx)$/;
const TEST = /_test\.tsx?$/;

/** Product files below `dirs` of `root` (relative paths): no tests, fixtures, generated protobuf code. */
export function productFiles(root: string, dirs: readonly string[], pattern = SOURCE): string[] {
  const out: string[] = [];
  const walk = (dir: string) => {
    let entries;
    try {
      entries = readdirSync(join(root, dir), { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const path = `${dir}/${e.name}`;
      if (e.isDirectory()) {
        if (!["node_modules", "testdata", "fixtures"].includes(e.name)) walk(path);
      } else if (pattern.test(e.name) && !TEST.test(e.name) && !path.startsWith("internal/proto/")) {
        out.push(path);
      }
    }
  };
  dirs.forEach(walk);
  return out.sort();
}

/**
 * Every import edge between files of `root` reachable from the product modules of `dirs`. Browser
 * apps (web/) resolve with their own config (preact's JSX), everything else with deno.json.
 */
export function moduleGraph(
  root: string,
  options: { deno: string; config: string; webConfig: string; dirs?: readonly string[] },
): Edge[] {
  const dirs = options.dirs ?? PRODUCT_DIRS;
  const modules = productFiles(root, dirs, MODULE);
  const groups = [
    { files: modules.filter((f) => !f.startsWith("web/")), config: options.config },
    { files: modules.filter((f) => f.startsWith("web/")), config: options.webConfig },
  ];
  const tmp = mkdtempSync(join(tmpdir(), "module-graph-"));
  const edges: Edge[] = [];
  try {
    for (const { files, config } of groups) {
      if (files.length === 0) continue;
      const entry = join(tmp, "all.ts");
      writeFileSync(entry, files.map((f) => `import "${pathToFileURL(join(root, f)).href}";\n`).join(""));
      const r = spawnSync(options.deno, ["info", "--json", "--config", config, entry], {
        cwd: root,
        encoding: "utf8",
        maxBuffer: 256 * 1024 * 1024,
      });
      if (r.status !== 0) throw new Error(`deno info failed: ${r.stderr}`);
      edges.push(...edgesOf(JSON.parse(r.stdout), root));
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  return edges;
}

interface DenoInfo {
  modules: {
    specifier: string;
    dependencies?: {
      code?: { specifier: string };
      type?: { specifier: string };
      isDynamic?: boolean;
    }[];
  }[];
}

function edgesOf(info: DenoInfo, root: string): Edge[] {
  const prefix = pathToFileURL(root).href + "/";
  const local = (specifier: string | undefined) =>
    specifier?.startsWith(prefix) && !specifier.includes("/node_modules/")
      ? decodeURIComponent(specifier.slice(prefix.length))
      : undefined;
  const edges: Edge[] = [];
  for (const m of info.modules) {
    const from = local(m.specifier);
    if (!from) continue;
    for (const d of m.dependencies ?? []) {
      const code = local(d.code?.specifier);
      const type = local(d.type?.specifier);
      if (code) edges.push({ from, to: code, runtime: true, dynamic: d.isDynamic === true });
      else if (type) edges.push({ from, to: type, runtime: false, dynamic: false });
    }
  }
  return edges;
}

/**
 * Import cycles over value imports (static or dynamic: a module that lazily loads one that imports it
 * back is still a cycle); type-only imports are erased and do not count. One violation per strongly
 * connected component, keyed by its members, with one cycle through it as the message.
 */
export function importCycles(edges: readonly Edge[]): Violation[] {
  const next = new Map<string, string[]>();
  for (const e of edges) {
    if (!e.runtime || e.from.startsWith("test/") || e.to.startsWith("test/")) continue;
    next.set(e.from, [...(next.get(e.from) ?? []), e.to]);
  }
  const out: Violation[] = [];
  for (const members of stronglyConnected(next)) {
    const inside = new Set(members);
    const path = cycleThrough(members[0]!, (v) => (next.get(v) ?? []).filter((w) => inside.has(w)));
    out.push({ key: `cycle: ${members.join(" ")}`, message: `import cycle: ${path.join(" → ")}` });
  }
  return out;
}

/** Tarjan's algorithm, iteratively; components of one module count only when it imports itself. */
function stronglyConnected(next: ReadonlyMap<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  for (const start of next.keys()) {
    if (index.has(start)) continue;
    const work: { v: string; i: number }[] = [{ v: start, i: 0 }];
    index.set(start, index.size);
    low.set(start, index.get(start)!);
    stack.push(start);
    onStack.add(start);
    while (work.length) {
      const top = work[work.length - 1]!;
      const ws = next.get(top.v) ?? [];
      if (top.i < ws.length) {
        const w = ws[top.i++]!;
        if (!index.has(w)) {
          index.set(w, index.size);
          low.set(w, index.get(w)!);
          stack.push(w);
          onStack.add(w);
          work.push({ v: w, i: 0 });
        } else if (onStack.has(w)) {
          low.set(top.v, Math.min(low.get(top.v)!, index.get(w)!));
        }
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.v, Math.min(low.get(parent.v)!, low.get(top.v)!));
      if (low.get(top.v) !== index.get(top.v)) continue;
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== top.v);
      if (component.length > 1 || (next.get(top.v) ?? []).includes(top.v)) out.push(component.sort());
    }
  }
  return out;
}

/** A shortest path from `start` back to itself. */
function cycleThrough(start: string, next: (v: string) => string[]): string[] {
  const from = new Map<string, string>();
  const queue = [start];
  while (queue.length) {
    const v = queue.shift()!;
    for (const w of next(v)) {
      if (w === start) {
        const path = [v];
        while (path[0] !== start) path.unshift(from.get(path[0]!)!);
        return [...path, start];
      }
      if (!from.has(w)) {
        from.set(w, v);
        queue.push(w);
      }
    }
  }
  return [start];
}

const top = (path: string) => path.split("/")[0]!;

/**
 * Arrows point down: internal/ imports nothing from cmd/, server/ or controller/; controller/ and
 * server/ nothing from cmd/ (type imports included: they couple the layers as much); web/ (bundled for
 * the browser) imports code outside web/ as types only.
 */
export function layerViolations(edges: readonly Edge[]): Violation[] {
  const out: Violation[] = [];
  const seen = new Set<string>();
  for (const e of edges) {
    const [a, b] = [top(e.from), top(e.to)];
    const rule = a === "internal" && ["cmd", "server", "controller"].includes(b)
      ? `internal/ must not import ${b}/`
      : ["controller", "server"].includes(a) && b === "cmd"
      ? `${a}/ must not import cmd/`
      : a === "web" && b !== "web" && e.runtime
      ? "web/ imports code outside web/ as types only (import type)"
      : undefined;
    const key = `layer: ${e.from} -> ${e.to}`;
    if (!rule || seen.has(key)) continue;
    seen.add(key);
    out.push({ key, message: `${e.from} imports ${e.to}: ${rule}` });
  }
  return out;
}

export const MAX_FILE_LINES = 700;

/** Files over 700 lines whose leading comment does not say why (a sentence naming "700 lines"). */
export function longFiles(root: string, files: readonly string[]): Violation[] {
  const out: Violation[] = [];
  for (const file of files) {
    const text = readFileSync(join(root, file), "utf8");
    const lines = text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
    if (lines <= MAX_FILE_LINES) continue;
    const leading =
      /^(#![^\n]*\n)?\s*((\/\*[\s\S]*?\*\/\s*|\/\/[^\n]*\n\s*|#[^\n]*\n\s*)+)/.exec(text)?.[2] ?? "";
    if (/\b700 lines\b/.test(leading)) continue;
    out.push({
      key: `size: ${file}`,
      message: `${file} has ${lines} lines: split it, or say at its top why it is over 700 lines`,
    });
  }
  return out;
}

export const MAX_FUNCTION_LINES = 150;

/** Functions (declarations, methods, arrows, function expressions) longer than 150 lines, nested ones too. */
export function longFunctions(root: string, files: readonly string[]): Violation[] {
  const out: Violation[] = [];
  for (const file of files) {
    const source = ts.createSourceFile(
      file,
      readFileSync(join(root, file), "utf8"),
      ts.ScriptTarget.Latest,
      true,
      file.endsWith(".tsx") ? ts.ScriptKind.TSX : ts.ScriptKind.TS,
    );
    const visit = (node: ts.Node) => {
      if (ts.isFunctionLike(node) && "body" in node && node.body) {
        const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
        const last = source.getLineAndCharacterOfPosition(node.end).line;
        const lines = last - first + 1;
        if (lines > MAX_FUNCTION_LINES) {
          const name = functionName(node, source) ?? `(anonymous, line ${first + 1})`;
          out.push({
            key: `function: ${file} ${name}`,
            message: `${file}:${first + 1} ${name} has ${lines} lines (at most ${MAX_FUNCTION_LINES})`,
          });
        }
      }
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return out;
}

/** The function's own name, else the name it is assigned to (`const f = () => …`, `{ f: () => … }`). */
function functionName(node: ts.Node, source: ts.SourceFile): string | undefined {
  const named = (n: ts.Node) =>
    "name" in n && n.name && ts.isIdentifier(n.name as ts.Node)
      ? (n.name as ts.Identifier).getText(source)
      : undefined;
  return named(node) ??
    (node.parent && (ts.isVariableDeclaration(node.parent) || ts.isPropertyAssignment(node.parent))
      ? named(node.parent)
      : undefined);
}
