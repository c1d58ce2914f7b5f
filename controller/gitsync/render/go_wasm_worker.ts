/**
 * One Go module compiled to wasm (Kustomize, Helm), run in a worker so that a long call never blocks
 * reconciles. Go's wasm is single-threaded, so one worker serves every call in turn. It starts on the
 * first call (its module and Go's wasm_exec.js glue are sent with an `init` message), is replaced after
 * a call that times out, and is stopped after a quiet spell to give back its memory.
 *
 * The worker script is built on go_wasm_runtime.ts: it answers `init` with `ready` (or `failed`), says
 * `exited` when Go's main returns, and answers each call `{type, id, ...}` with `{type: "result", id, ...}`.
 * Any other message from it (Helm's `lookup`) goes to `onMessage` with the context of its call.
 *
 * @example
 * const go = new GoWasmWorker({ name: "Kustomize", command: "kustomize build", wasm: "kustomize.wasm",
 *   script: new URL("./kustomize_worker.ts", import.meta.url), entry: "controller/gitsync/render/kustomize_worker.ts" });
 * const result = await go.call({ type: "build", files, dir });   // the worker's result message
 */
import { startWorker } from "../../../internal/platform/mod.ts";
import { RenderFailure } from "./failure.ts";
import { wasmAsset } from "./wasm_assets.ts";

/** What every Go wasm worker may send besides results and its own messages. */
export type GoWasmLifecycle = { type: "ready" } | { type: "failed"; error: string } | { type: "exited" };

/** A call's answer: `result` with the call's id and whatever the worker computed. */
export interface GoWasmResult {
  type: "result";
  id: number;
}

export interface GoWasmWorkerOptions<Context> {
  /** For messages: "the Kustomize renderer exited". */
  name: string;
  /** For the timeout message: "kustomize build took longer than 60 s". */
  command: string;
  /** The module's file among the wasm assets (wasm_assets.ts). */
  wasm: "kustomize.wasm" | "helm.wasm";
  /** The worker script, and its path inside the compiled binary (internal/platform's startWorker). */
  script: URL;
  entry: string;
  /** A call that takes longer fails and its worker is replaced; default 60 s. */
  timeoutMs?: number;
  /** The worker is stopped after this long without calls; default 5 min. */
  idleMs?: number;
  /** Messages other than the lifecycle and results, with the context their call was given. */
  onMessage?: (
    msg: { type: string; id?: number },
    context: Context | undefined,
    reply: (m: unknown) => void,
  ) => void;
}

interface Pending<Context> {
  resolve(result: GoWasmResult): void;
  reject(err: Error): void;
  timer: ReturnType<typeof setTimeout>;
  context: Context | undefined;
}

export class GoWasmWorker<Context = undefined> {
  private worker?: Worker;
  private ready?: Promise<void>;
  private rejectReady?: (err: Error) => void;
  private readonly pending = new Map<number, Pending<Context>>();
  private nextId = 1;
  private idle?: ReturnType<typeof setTimeout>;
  private readonly timeoutMs: number;
  private readonly idleMs: number;

  constructor(private readonly o: GoWasmWorkerOptions<Context>) {
    this.timeoutMs = o.timeoutMs ?? 60_000;
    this.idleMs = o.idleMs ?? 300_000;
  }

  /** Sends `message` (an id is added) and resolves with the worker's result message. */
  async call<R extends GoWasmResult>(message: { type: string } & object, context?: Context): Promise<R> {
    clearTimeout(this.idle);
    const worker = this.start();
    await this.ready;
    const id = this.nextId++;
    return await new Promise<R>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.stop(new RenderFailure(`${this.o.command} took longer than ${this.timeoutMs / 1000} s`));
      }, this.timeoutMs);
      this.pending.set(id, { resolve: resolve as (r: GoWasmResult) => void, reject, timer, context });
      worker.postMessage({ ...message, id });
    }).finally(() => {
      if (this.pending.size === 0 && this.worker) {
        this.idle = setTimeout(
          () => this.stop(new RenderFailure(`the ${this.o.name} worker stopped`)),
          this.idleMs,
        );
      }
    });
  }

  /** Stops the worker; calls in flight fail. */
  close(): void {
    clearTimeout(this.idle);
    this.stop(new RenderFailure(`the ${this.o.name} renderer was closed`));
  }

  private start(): Worker {
    if (this.worker) return this.worker;
    const worker = startWorker(this.o.script, this.o.entry);
    this.worker = worker;
    const failed = (message: string) =>
      this.stop(new RenderFailure(`the ${this.o.name} renderer ${message}`));
    // Answers go to this worker only: a reply to one that was replaced meanwhile is dropped.
    const reply = (m: unknown) => {
      if (this.worker === worker) worker.postMessage(m);
    };
    this.ready = new Promise<void>((resolve, reject) => {
      this.rejectReady = reject;
      worker.onmessage = (
        e: MessageEvent<GoWasmLifecycle | GoWasmResult | { type: string; id?: number }>,
      ) => {
        const msg = e.data;
        if (msg.type === "ready") resolve();
        else if (msg.type === "failed") failed(`did not start: ${(msg as { error: string }).error}`);
        else if (msg.type === "exited") failed("exited");
        else if (msg.type === "result") this.settle(msg as GoWasmResult);
        else {
          const id = (msg as { id?: number }).id;
          this.o.onMessage?.(msg, id === undefined ? undefined : this.pending.get(id)?.context, reply);
        }
      };
      worker.onerror = (e) => {
        e.preventDefault();
        failed(`failed: ${e.message}`);
      };
    });
    this.ready.catch(() => {});
    Promise.all([wasmAsset(this.o.wasm), wasmAsset("wasm_exec.js")]).then(
      ([wasm, glue]) =>
        worker.postMessage({ type: "init", wasm, glue: new TextDecoder().decode(glue) }, [
          wasm.buffer as ArrayBuffer,
        ]),
      (err: Error) => failed(`did not start: ${err.message}`),
    );
    return worker;
  }

  private settle(msg: GoWasmResult) {
    const p = this.pending.get(msg.id);
    if (!p) return;
    this.pending.delete(msg.id);
    clearTimeout(p.timer);
    p.resolve(msg);
  }

  private stop(reason: Error) {
    this.worker?.terminate();
    this.worker = undefined;
    this.ready = undefined;
    this.rejectReady?.(reason);
    this.rejectReady = undefined;
    for (const p of this.pending.values()) {
      clearTimeout(p.timer);
      p.reject(reason);
    }
    this.pending.clear();
  }
}
