/**
 * Runs Helm's wasm module (wasm/helm) off the manager's event loop (go_wasm_runtime.ts): helm.ts owns
 * this worker; the messages are the `HelmCall`, `HelmLookup`, `HelmLookupReply` and `HelmResult` types
 * there. A render is asynchronous inside the module: Helm's `lookup` asks the owner for each GET
 * (`lookup`) and waits for the answer (`lookup-reply`).
 */
import { serveGoWasm } from "./go_wasm_runtime.ts";
import type { HelmCall, HelmLookup, HelmLookupReply, HelmResult, LookupResponse } from "./helm.ts";

type Render = (
  request: Record<string, unknown>,
  lookup: ((path: string) => Promise<LookupResponse>) | null,
) => Promise<{ yaml?: string; error?: string }>;

// Helm logs through Go's log package (stderr) and fmt; nothing of it belongs on the manager's stdout.
console.log = () => {};

const lookups = new Map<number, { resolve(r: LookupResponse): void; reject(e: Error): void }>();
let nextLookup = 1;

serveGoWasm<Render, (HelmCall & { id: number }) | HelmLookupReply>(
  "gitsyncHelm",
  "Helm",
  async (render, msg, post) => {
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
          post({ type: "lookup", id, lookupId, path } satisfies HelmLookup);
        })
      : null;
    const out = await render(msg.request, lookup);
    post({ type: "result", id, ...out, ms: performance.now() - started } satisfies HelmResult);
  },
);
