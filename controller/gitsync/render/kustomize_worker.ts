/**
 * Runs Kustomize's wasm module (wasm/kustomize) off the manager's event loop: a Go wasm module is
 * single-threaded and holds its thread for the whole build. kustomize.ts owns this worker; the messages
 * are the `WorkerRequest` and `WorkerReply` types there.
 *
 * The module gets no disk and no network: Go's glue falls back to a file system that answers ENOSYS
 * when `globalThis.fs` is absent, and Go's net/http finds no `fetch` (the module refuses remote
 * references itself as well).
 */
import type { WorkerReply, WorkerRequest } from "./kustomize.ts";

interface GoRuntime {
  importObject: WebAssembly.Imports;
  run(instance: WebAssembly.Instance): Promise<void>;
}

type Build = (files: [string, Uint8Array][], dir: string) => { yaml?: string; error?: string };

const g = globalThis as unknown as {
  fs?: unknown;
  fetch?: unknown;
  Go?: new () => GoRuntime;
  gitsyncKustomize?: Build;
  onmessage: ((e: MessageEvent<WorkerRequest>) => void) | null;
  postMessage(reply: WorkerReply): void;
};

delete g.fs;
delete g.fetch;
g.fetch = undefined;

// What the module prints (Kustomize's deprecation warnings) goes back with the build, not to stdout.
let printed: string[] = [];
console.log = (...args: unknown[]) => printed.push(args.join(" "));

async function start(wasm: Uint8Array, glue: string): Promise<void> {
  // wasm_exec.js is a classic script that defines globalThis.Go.
  new Function(glue)();
  const go = new g.Go!();
  const instance = await WebAssembly.instantiate(
    await WebAssembly.compile(wasm as BufferSource),
    go.importObject,
  );
  // run() settles only when Go's main returns; main registers the function and then blocks.
  go.run(instance).then(() => g.postMessage({ type: "exited" }));
  if (typeof g.gitsyncKustomize !== "function") throw new Error("the Kustomize module did not start");
}

g.onmessage = async (e) => {
  const msg = e.data;
  if (msg.type === "init") {
    try {
      await start(msg.wasm, msg.glue);
      g.postMessage({ type: "ready" });
    } catch (err) {
      g.postMessage({ type: "failed", error: String((err as Error)?.message ?? err) });
    }
    return;
  }
  printed = [];
  const started = performance.now();
  const out = g.gitsyncKustomize!(msg.files, msg.dir);
  const warnings = printed.map((line) => line.replace(/^# Warning: /, "")).filter(Boolean);
  g.postMessage({ type: "built", id: msg.id, ...out, warnings, ms: performance.now() - started });
};
