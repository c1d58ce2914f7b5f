/**
 * Runs Kustomize's wasm module (wasm/kustomize) off the manager's event loop (go_wasm_runtime.ts):
 * kustomize.ts owns this worker; the messages are the `KustomizeCall` and `KustomizeResult` types there.
 * The module refuses remote references itself as well as having no network.
 */
import { serveGoWasm } from "./go_wasm_runtime.ts";
import type { KustomizeCall, KustomizeResult } from "./kustomize.ts";

type Build = (files: [string, Uint8Array][], dir: string) => { yaml?: string; error?: string };

// What the module prints (Kustomize's deprecation warnings) goes back with the build, not to stdout.
let printed: string[] = [];
console.log = (...args: unknown[]) => printed.push(args.join(" "));

serveGoWasm<Build, KustomizeCall & { id: number }>("gitsyncKustomize", "Kustomize", (build, msg, post) => {
  printed = [];
  const started = performance.now();
  const out = build(msg.files, msg.dir);
  const warnings = printed.map((line) => line.replace(/^# Warning: /, "")).filter(Boolean);
  post(
    {
      type: "result",
      id: msg.id,
      ...out,
      warnings,
      ms: performance.now() - started,
    } satisfies KustomizeResult,
  );
});
