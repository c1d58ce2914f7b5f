/**
 * The Kustomize renderer (seed sections 1.2 and 8): `kustomize build` of a path in the checked-out tree,
 * by Kustomize itself (the kustomize API kubectl 1.32 embeds, compiled to wasm from wasm/kustomize) on an
 * in-memory copy of the tree, in a worker so that a long build never blocks reconciles. The output
 * equals `kubectl kustomize` byte for byte. Remote bases and resources are refused; Helm charts and
 * plugins are off.
 *
 * One worker serves every build in turn (Go's wasm is single-threaded). It starts on the first build,
 * is restarted after a build that times out, and is stopped after a quiet spell to give back its memory
 * (about 200 MB once warm).
 */
import type { KubeObject } from "../../../internal/k8s/mod.ts";
import { startWorker } from "../../../internal/platform/mod.ts";
import { RenderFailure } from "./failure.ts";
import { parseManifests } from "./plain_yaml.ts";
import { wasmAsset } from "./wasm_assets.ts";

export type WorkerRequest =
  | { type: "init"; wasm: Uint8Array; glue: string }
  | { type: "build"; id: number; files: [string, Uint8Array][]; dir: string };

export type WorkerReply =
  | { type: "ready" }
  | { type: "failed"; error: string }
  | { type: "exited" }
  | { type: "built"; id: number; yaml?: string; error?: string; warnings: string[]; ms: number };

export interface KustomizeOptions {
  /** A build that takes longer fails and its worker is replaced; default 60 s. */
  timeoutMs?: number;
  /** The worker is stopped after this long without builds; default 5 min. */
  idleMs?: number;
  /** Kustomize's warnings (deprecated fields and the like); default: dropped. */
  warn?: (message: string, path: string) => void;
}

/** File names that make a folder a kustomization, in the order Kustomize looks for them. */
export const KUSTOMIZATION_FILES = ["kustomization.yaml", "kustomization.yml", "Kustomization"];

export function hasKustomization(tree: ReadonlyMap<string, Uint8Array>, path: string): boolean {
  const base = normalizePath(path);
  return KUSTOMIZATION_FILES.some((f) => tree.has(base ? `${base}/${f}` : f));
}

function normalizePath(path: string): string {
  return path.replace(/^\.?\/+/, "").replace(/\/+$/, "").replace(/^\.$/, "");
}

interface Pending {
  dir: string;
  resolve(yaml: string): void;
  reject(err: Error): void;
  timer: ReturnType<typeof setTimeout>;
}

export class Kustomize {
  private worker?: Worker;
  private ready?: Promise<void>;
  private rejectReady?: (err: Error) => void;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private idle?: ReturnType<typeof setTimeout>;
  private readonly timeoutMs: number;
  private readonly idleMs: number;
  private readonly warn: (message: string, path: string) => void;

  constructor(options: KustomizeOptions = {}) {
    this.timeoutMs = options.timeoutMs ?? 60_000;
    this.idleMs = options.idleMs ?? 300_000;
    this.warn = options.warn ?? (() => {});
  }

  /** The objects `kustomize build <path>` gives for the tree. */
  async render(tree: ReadonlyMap<string, Uint8Array>, path: string): Promise<KubeObject[]> {
    const dir = normalizePath(path);
    return parseManifests(await this.build(tree, dir), `kustomize build ${dir || "."}`);
  }

  /** The YAML text `kustomize build <path>` prints for the tree. */
  async build(tree: ReadonlyMap<string, Uint8Array>, path: string): Promise<string> {
    clearTimeout(this.idle);
    const worker = this.start();
    await this.ready;
    const id = this.nextId++;
    const dir = normalizePath(path);
    const files = [...tree].map(([name, bytes]) => [name, bytes] as [string, Uint8Array]);
    return await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.stop(new RenderFailure(`kustomize build took longer than ${this.timeoutMs / 1000} s`));
      }, this.timeoutMs);
      this.pending.set(id, { resolve, reject, timer, dir });
      worker.postMessage({ type: "build", id, files, dir } satisfies WorkerRequest);
    }).finally(() => {
      if (this.pending.size === 0 && this.worker) {
        this.idle = setTimeout(() => this.stop(new RenderFailure("kustomize worker stopped")), this.idleMs);
      }
    });
  }

  /** Stops the worker; builds in flight fail. */
  close(): void {
    clearTimeout(this.idle);
    this.stop(new RenderFailure("the Kustomize renderer was closed"));
  }

  private start(): Worker {
    if (this.worker) return this.worker;
    const worker = startWorker(
      new URL("./kustomize_worker.ts", import.meta.url),
      "controller/gitsync/render/kustomize_worker.ts",
    );
    this.worker = worker;
    const failed = (message: string) => this.stop(new RenderFailure(`the Kustomize renderer ${message}`));
    this.ready = new Promise<void>((resolve, reject) => {
      this.rejectReady = reject;
      worker.onmessage = (e: MessageEvent<WorkerReply>) => {
        const msg = e.data;
        if (msg.type === "ready") resolve();
        else if (msg.type === "failed") failed(`did not start: ${msg.error}`);
        else if (msg.type === "exited") failed("exited");
        else this.settle(msg);
      };
      worker.onerror = (e) => {
        e.preventDefault();
        failed(`failed: ${e.message}`);
      };
    });
    this.ready.catch(() => {});
    Promise.all([wasmAsset("kustomize.wasm"), wasmAsset("wasm_exec.js")]).then(
      ([wasm, glue]) => {
        const init: WorkerRequest = { type: "init", wasm, glue: new TextDecoder().decode(glue) };
        worker.postMessage(init, [wasm.buffer as ArrayBuffer]);
      },
      (err: Error) => failed(`did not start: ${err.message}`),
    );
    return worker;
  }

  private settle(msg: Extract<WorkerReply, { type: "built" }>) {
    const p = this.pending.get(msg.id);
    if (!p) return;
    this.pending.delete(msg.id);
    clearTimeout(p.timer);
    for (const w of msg.warnings) this.warn(w, p.dir);
    if (msg.error !== undefined) p.reject(new RenderFailure(`kustomize build: ${explain(msg.error)}`));
    else p.resolve(msg.yaml ?? "");
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

/**
 * Kustomize's message, with the in-memory root taken off its paths and the refusal of remote bases
 * (Kustomize tries to run `git`, which the module cannot) said plainly.
 */
function explain(error: string): string {
  const message = error.replaceAll(/(^|[\s'"(])\/(?=[^\s/])/g, "$1");
  if (/git.*(cloning|clone)|exec: not implemented|exec: "git"/i.test(message)) {
    return `remote bases are refused (${message})`;
  }
  return message;
}
