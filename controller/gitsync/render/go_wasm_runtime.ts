/**
 * The worker side of go_wasm_worker.ts: boots a Go wasm module off the manager's event loop and hands
 * every other message to the renderer's own handler. Kustomize's and Helm's workers are built on it.
 *
 * The module gets no disk and no network: Go's glue falls back to a file system that answers ENOSYS
 * when `globalThis.fs` is absent, and Go's net/http finds no `fetch`.
 *
 * @example
 * serveGoWasm<Build>("gitsyncKustomize", "Kustomize", (build, msg, post) => {
 *   post({ type: "result", id: msg.id, ...build(msg.files, msg.dir) });
 * });
 */
interface GoRuntime {
  importObject: WebAssembly.Imports;
  run(instance: WebAssembly.Instance): Promise<void>;
}

const g = globalThis as unknown as Record<string, unknown> & {
  Go?: new () => GoRuntime;
  onmessage: ((e: MessageEvent<{ type: string; wasm?: Uint8Array; glue?: string }>) => void) | null;
  postMessage(message: unknown): void;
};

/**
 * Boots the module on `init` (it must register `globalThis[exportName]`), then passes each other message to
 * `handle` with that function.
 */
export function serveGoWasm<
  F,
  M extends { type: string } = { type: string; id: number } & Record<string, unknown>,
>(
  exportName: string,
  moduleName: string,
  handle: (fn: F, msg: M, post: (reply: unknown) => void) => unknown,
): void {
  delete g.fs;
  g.fetch = undefined;
  const post = (reply: unknown) => g.postMessage(reply);

  async function start(wasm: Uint8Array, glue: string): Promise<void> {
    // wasm_exec.js is a classic script that defines globalThis.Go.
    new Function(glue)();
    const go = new g.Go!();
    const instance = await WebAssembly.instantiate(
      await WebAssembly.compile(wasm as BufferSource),
      go.importObject,
    );
    // run() settles only when Go's main returns; main registers the function and then blocks.
    go.run(instance).then(() => post({ type: "exited" }));
    if (typeof g[exportName] !== "function") throw new Error(`the ${moduleName} module did not start`);
  }

  g.onmessage = async (e) => {
    const msg = e.data;
    if (msg.type !== "init") return void await handle(g[exportName] as F, msg as unknown as M, post);
    try {
      await start(msg.wasm!, msg.glue!);
      post({ type: "ready" });
    } catch (err) {
      post({ type: "failed", error: String((err as Error)?.message ?? err) });
    }
  };
}
