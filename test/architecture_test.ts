/**
 * The architecture test (issue 42's acceptance): the layout's rules over the real module graph of the
 * product code (test/harness/architecture.ts). KNOWN lists the violations other changes are removing;
 * each names what removes it. The list only shrinks: a listed violation that no longer occurs fails
 * the last test until its line is deleted, so the list cannot rot.
 */
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { after, before, describe, it } from "node:test";
import {
  type Edge,
  importCycles,
  layerViolations,
  longFiles,
  longFunctions,
  moduleGraph,
  PRODUCT_DIRS,
  productFiles,
  type Violation,
} from "./harness/architecture.ts";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const TOOLS = {
  deno: join(ROOT, "node_modules", ".bin", "deno"),
  config: join(ROOT, "deno.json"),
  webConfig: join(ROOT, "deno.dashboard.json"),
};

/** Violations still to be removed, each with the change that removes it. Delete a line once it is gone. */
const KNOWN: Record<string, string> = {};

/** The violations `found` has that KNOWN does not list, as one message per line. */
function unexpected(found: readonly Violation[]): string {
  return found.filter((v) => !(v.key in KNOWN)).map((v) => v.message).join("\n");
}

describe("the product code keeps the layout's rules", () => {
  let edges: Edge[];
  const found: Violation[] = [];
  before(() => {
    edges = moduleGraph(ROOT, TOOLS);
  });

  it("reads the whole graph", () => {
    const from = new Set(edges.map((e) => e.from.split("/")[0]));
    for (const dir of PRODUCT_DIRS) assert.ok(from.has(dir), `no import edges from ${dir}/`);
    assert.ok(edges.length > 1500, `${edges.length} edges`);
  });

  it("has no import cycle among product modules (type-only imports aside)", () => {
    const v = importCycles(edges);
    found.push(...v);
    assert.equal(unexpected(v), "");
  });

  it("points arrows down: internal/ ↛ cmd, server, controller; controller/, server/ ↛ cmd; web/ types only", () => {
    const v = layerViolations(edges);
    found.push(...v);
    assert.equal(unexpected(v), "");
  });

  it("has no file over 700 lines without a reason at its top", () => {
    const v = longFiles(ROOT, productFiles(ROOT, PRODUCT_DIRS));
    found.push(...v);
    assert.equal(unexpected(v), "");
  });

  it("has no function over 150 lines in controller/ and server/", () => {
    const v = longFunctions(ROOT, productFiles(ROOT, ["controller", "server"], /\.tsx?$/));
    found.push(...v);
    assert.equal(unexpected(v), "");
  });

  it("still has every known violation: a removed one is deleted from KNOWN", () => {
    const keys = new Set(found.map((v) => v.key));
    const gone = Object.keys(KNOWN).filter((k) => !keys.has(k));
    assert.deepEqual(gone, [], "these are fixed: delete them from KNOWN in test/architecture_test.ts");
  });
});

describe("the rules catch what they are for (a small tree with one of each)", () => {
  let dir: string;
  const write = (path: string, text: string) => {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  };
  const body = (n: number) => Array.from({ length: n - 2 }, (_, i) => `  const v${i} = ${i};\n`).join("");
  before(() => {
    dir = mkdtempSync(join(tmpdir(), "architecture-"));
    write("cmd/t/a.ts", 'import { b } from "./b.ts";\nexport const a = () => b;\n');
    write("cmd/t/b.ts", 'import { a } from "./a.ts";\nexport const b = () => a;\n');
    write("cmd/t/c.ts", 'import type { D } from "./d.ts";\nexport type C = D | 1;\n');
    write("cmd/t/d.ts", 'import type { C } from "./c.ts";\nexport type D = C | 2;\n');
    write("cmd/t/e.ts", 'export const e = () => import("./f.ts");\n');
    write("cmd/t/f.ts", 'import { e } from "./e.ts";\nexport const f = e;\n');
    write("internal/x.ts", 'import { a } from "../cmd/t/a.ts";\nexport const x = a;\n');
    write("internal/y.ts", 'import { s } from "../server/s.ts";\nexport const y = s;\n');
    write("server/s.ts", 'import type { C } from "../cmd/t/c.ts";\nexport const s: C | 0 = 0;\n');
    write("web/app.ts", 'import { s } from "../server/s.ts";\nexport const app = s;\n');
    write("web/ok.ts", 'import type { C } from "../cmd/t/c.ts";\nexport const ok: C = 1;\n');
    write("internal/big.ts", "// A module.\n" + "export const n = 1;\n".repeat(700));
    write("internal/big_ok.ts", "/** Over 700 lines: one table. */\n" + "export const n = 1;\n".repeat(700));
    write(
      "server/long.ts",
      `export function long() {\n${body(151)}}\nexport function fits() {\n${body(150)}}\n`,
    );
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("finds the value cycles, dynamic ones too, but not the type-only one", () => {
    const keys = importCycles(moduleGraph(dir, TOOLS)).map((v) => v.key).sort();
    assert.deepEqual(keys, ["cycle: cmd/t/a.ts cmd/t/b.ts", "cycle: cmd/t/e.ts cmd/t/f.ts"]);
  });

  it("finds imports that point up, and web/'s value imports of server code", () => {
    const keys = layerViolations(moduleGraph(dir, TOOLS)).map((v) => v.key).sort();
    assert.deepEqual(keys, [
      "layer: internal/x.ts -> cmd/t/a.ts",
      "layer: internal/y.ts -> server/s.ts",
      "layer: server/s.ts -> cmd/t/c.ts",
      "layer: web/app.ts -> server/s.ts",
    ]);
  });

  it("finds the long file without a reason and the function over 150 lines", () => {
    assert.deepEqual(longFiles(dir, productFiles(dir, ["internal"])).map((v) => v.key), [
      "size: internal/big.ts",
    ]);
    assert.deepEqual(longFunctions(dir, ["server/long.ts"]).map((v) => v.key), [
      "function: server/long.ts long",
    ]);
  });
});
