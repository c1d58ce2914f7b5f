/**
 * What each binary evaluates at start: the modules reachable from cmd/<tool>/main.ts through static
 * imports, as Bun bundles them (`bun build --metafile`). Commands load their heavy modules with
 * `await import()` in their actions (issue 41): a static import of one of them from a command's
 * definition would make every start, `--version` and `--help` included, evaluate it. The speed itself
 * is measured by `deno task bench:startup`, not here.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { test } from "node:test";
import { TOOLS } from "../scripts/lib/tools.ts";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const BUN = join(ROOT, "node_modules", ".bin", "bun");

/** Modules no binary may evaluate before a command asks for them, by what they are. */
const HEAVY: Record<string, RegExp> = {
  "gRPC (Connect, protobuf)": /node_modules\/@connectrpc\/|node_modules\/@bufbuild\/|^internal\/proto\//,
  "OpenTelemetry and grpc-js":
    /node_modules\/@opentelemetry\/|node_modules\/@grpc\/|node_modules\/protobufjs\//,
  "HTTP servers and OIDC": /node_modules\/hono\/|node_modules\/jose\/|^internal\/(http|oidc|web)\//,
  "the database (PGlite, Kysely, postgres.js)":
    /node_modules\/@electric-sql\/|node_modules\/kysely|node_modules\/postgres\/|^internal\/db\/(?!initdb_child)/,
  "the embedders (MiniLM, onnxruntime)": /node_modules\/onnxruntime|^server\/memsvc\/embeddings\//,
  "the services": /^server\/(memsvc|vault)\/(server|app)\.ts$/,
  "Git and the renderers":
    /node_modules\/isomorphic-git\/|node_modules\/ssh2\/|^controller\/gitsync\/(source\/git\/git_source|render\/(render|helm|kustomize))\.ts$/,
  "the Kubernetes client": /^internal\/k8s\/client\.ts$/,
  "zod schemas of the servers' configuration": /^(server\/(memsvc|vault)\/config|internal\/config\/env)\.ts$/,
};

interface Metafile {
  inputs: Record<string, { imports: { path: string; kind: string; external?: boolean }[] }>;
}

/** Every module main.ts reaches through static imports, each with the chain that reaches it. */
function eagerModules(tool: string): Map<string, string[]> {
  const out = mkdtempSync(join(tmpdir(), "startup-imports-"));
  try {
    const meta = join(out, "meta.json");
    const r = spawnSync(
      BUN,
      ["build", "--target=bun", `cmd/${tool}/main.ts`, "--outdir", join(out, "bundle"), `--metafile=${meta}`],
      { cwd: ROOT, encoding: "utf8" },
    );
    assert.equal(r.status, 0, r.stderr);
    const { inputs } = JSON.parse(readFileSync(meta, "utf8")) as Metafile;
    const entry = `cmd/${tool}/main.ts`;
    const chains = new Map<string, string[]>([[entry, [entry]]]);
    const queue = [entry];
    while (queue.length) {
      const from = queue.shift()!;
      for (const i of inputs[from]?.imports ?? []) {
        if (i.kind === "dynamic-import" || i.external || !(i.path in inputs) || chains.has(i.path)) continue;
        chains.set(i.path, [...chains.get(from)!, i.path]);
        queue.push(i.path);
      }
    }
    return chains;
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}

for (const tool of TOOLS) {
  test(`${tool} evaluates no heavy module at start (commands load theirs when they run)`, () => {
    const eager = eagerModules(tool);
    assert.ok(eager.size > 10, "the graph was read");
    const found = [...eager].flatMap(([path, chain]) =>
      Object.entries(HEAVY).filter(([, pattern]) => pattern.test(path)).map(([what]) =>
        `${what}: ${chain.join(" -> ")}`
      )
    );
    assert.deepEqual(found.slice(0, 5), [], `${found.length} heavy modules load at every start`);
  });
}
