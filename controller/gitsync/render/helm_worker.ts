/**
 * Runs Helm's wasm module (wasm/helm) off the manager's event loop, as kustomize_worker.ts does for
 * Kustomize. helm.ts owns this worker; the messages are the `HelmWorkerRequest` and `HelmWorkerReply`
 * types there. A render is asynchronous inside the module: Helm's `lookup` asks the owner for each GET
 * (`lookup` message) and waits for the answer (`lookup-reply`).
 *
 * The module gets no disk and no network: no `globalThis.fs` (Go's glue answers ENOSYS) and no `fetch`.
 */
import type { HelmWorkerReply, HelmWorkerRequest, LookupResponse } from "./helm.ts";

interface GoRuntime {
  importObject: WebAssembly.Imports;
  run(instance: WebAssembly.Instance): Promise<void>;
}

type Render = (
  request: Record<string, unknown>,
  lookup: ((path: string) => Promise<LookupResponse>) | null,
) => Promise<{ yaml?: string; error?: string }>;

const g = globalThis as unknown as {
  fs?: unknown;
  fetch?: unknown;
  Go?: new () => GoRuntime;
  gitsyncHelm?: Render;
  onmessage: ((e: MessageEvent<HelmWorkerRequest>) => void) | null;
  postMessage(reply: HelmWorkerReply): void;
};

delete g.fs;
delete g.fetch;
g.fetch = undefined;

// Helm logs through Go's log package (stderr) and fmt; nothing of it belongs on the manager's stdout.
console.log = () => {};

const lookups = new Map<number, { resolve(r: LookupResponse): void; reject(e: Error): void }>();
let nextLookup = 1;

async function start(wasm: Uint8Array, glue: string): Promise<void> {
  new Function(glue)();
  const go = new g.Go!();
  const instance = await WebAssembly.instantiate(
    await WebAssembly.compile(wasm as BufferSource),
    go.importObject,
  );
  go.run(instance).then(() => g.postMessage({ type: "exited" }));
  if (typeof g.gitsyncHelm !== "function") throw new Error("the Helm module did not start");
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
  if (msg.type === "lookup-reply") {
    const waiting = lookups.get(msg.lookupId);
    lookups.delete(msg.lookupId);
    if (msg.error !== undefined) waiting?.reject(new Error(msg.error));
    else waiting?.resolve({ status: msg.status!, body: msg.body! });
    return;
  }
  const started = performance.now();
  const id = msg.id;
  const lookup = msg.lookup
    ? (path: string) =>
      new Promise<LookupResponse>((resolve, reject) => {
        const lookupId = nextLookup++;
        lookups.set(lookupId, { resolve, reject });
        g.postMessage({ type: "lookup", id, lookupId, path });
      })
    : null;
  const out = await g.gitsyncHelm!(msg.request, lookup);
  g.postMessage({ type: "rendered", id, ...out, ms: performance.now() - started });
};
