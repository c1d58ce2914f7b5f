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
import { RenderFailure } from "./failure.ts";
import { GoWasmWorker } from "./go_wasm_worker.ts";
import { parseManifests } from "./plain_yaml.ts";

/** A build the worker runs (kustomize_worker.ts), and its answer. */
export type KustomizeCall = { type: "build"; files: [string, Uint8Array][]; dir: string };
export type KustomizeResult = {
  type: "result";
  id: number;
  yaml?: string;
  error?: string;
  warnings: string[];
  ms: number;
};

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

export class Kustomize {
  private readonly go: GoWasmWorker;
  private readonly warn: (message: string, path: string) => void;

  constructor(options: KustomizeOptions = {}) {
    this.go = new GoWasmWorker({
      name: "Kustomize",
      command: "kustomize build",
      wasm: "kustomize.wasm",
      script: new URL("./kustomize_worker.ts", import.meta.url),
      entry: "controller/gitsync/render/kustomize_worker.ts",
      ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
      ...(options.idleMs !== undefined ? { idleMs: options.idleMs } : {}),
    });
    this.warn = options.warn ?? (() => {});
  }

  /** The objects `kustomize build <path>` gives for the tree. */
  async render(tree: ReadonlyMap<string, Uint8Array>, path: string): Promise<KubeObject[]> {
    const dir = normalizePath(path);
    return parseManifests(await this.build(tree, dir), `kustomize build ${dir || "."}`);
  }

  /** The YAML text `kustomize build <path>` prints for the tree. */
  async build(tree: ReadonlyMap<string, Uint8Array>, path: string): Promise<string> {
    const dir = normalizePath(path);
    const files = [...tree].map(([name, bytes]) => [name, bytes] as [string, Uint8Array]);
    const call: KustomizeCall = { type: "build", files, dir };
    const r = await this.go.call<KustomizeResult>(call);
    for (const w of r.warnings) this.warn(w, dir);
    if (r.error !== undefined) throw new RenderFailure(`kustomize build: ${explain(r.error)}`);
    return r.yaml ?? "";
  }

  /** Stops the worker; builds in flight fail. */
  close(): void {
    this.go.close();
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
