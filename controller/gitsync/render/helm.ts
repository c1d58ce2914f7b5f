/**
 * The Helm renderer (seed sections 1.2, 2 and 8): Helm's own template engine (helm.sh/helm/v3 at the
 * version of the test helm binary, compiled to wasm from wasm/helm) renders a chart given as data, in
 * a worker so that a long render never blocks reconciles. The text equals
 * `helm template --include-crds --skip-tests` for the same chart, values, release and Kubernetes version:
 * CRDs from crds/, manifests in Helm's install order, then hooks; NOTES.txt and test hooks are dropped.
 *
 * Objects then take gitsync's hook annotation in place of Helm's: pre-install/pre-upgrade run as
 * pre-sync hooks, post-install/post-upgrade as post-sync hooks; any other Helm hook is refused
 * (ValidationFailure), as rollout/groups.ts refuses Argo CD's.
 *
 * One worker serves every render in turn (Go's wasm is single-threaded). It starts on the first render,
 * is restarted after a render that times out, and is stopped after a quiet spell.
 */
import type { KubeObject } from "../../../internal/k8s/mod.ts";
import { startWorker } from "../../../internal/platform/mod.ts";
import { HOOK_ANNOTATION, ValidationFailure } from "../rollout/groups.ts";
import { RenderFailure } from "./failure.ts";
import { parseManifests } from "./plain_yaml.ts";
import { wasmAsset } from "./wasm_assets.ts";

/** An answer to one GET of Helm's `lookup` (discovery, get or list), as the API server gave it. */
export interface LookupResponse {
  status: number;
  body: string;
}

/** Serves the GETs of Helm's `lookup` (path with query, e.g. `/api/v1/namespaces/a/configmaps/b`). */
export type Lookup = (path: string) => Promise<LookupResponse>;

export type HelmWorkerRequest =
  | { type: "init"; wasm: Uint8Array; glue: string }
  | { type: "render"; id: number; request: Record<string, unknown>; lookup: boolean }
  | { type: "lookup-reply"; lookupId: number; status?: number; body?: string; error?: string };

export type HelmWorkerReply =
  | { type: "ready" }
  | { type: "failed"; error: string }
  | { type: "exited" }
  | { type: "lookup"; id: number; lookupId: number; path: string }
  | { type: "rendered"; id: number; yaml?: string; error?: string; ms: number };

/** The Kubernetes version templates see (.Capabilities.KubeVersion) when the caller names none. */
export const DEFAULT_KUBE_VERSION = "v1.34.0";

export interface HelmTemplateInput {
  /** The chart folder's files by path relative to the chart root (Chart.yaml, templates/, charts/ ...). */
  chart: ReadonlyMap<string, Uint8Array>;
  /** Values documents (YAML) merged over the chart's defaults in order, later wins. */
  values?: string[];
  releaseName: string;
  namespace: string;
  /** .Release.Revision; default 1. */
  revision?: number;
  /** .Release.IsUpgrade (and not IsInstall); default false. */
  isUpgrade?: boolean;
  /** .Capabilities.KubeVersion; default DEFAULT_KUBE_VERSION. */
  kubeVersion?: string;
  /** Added to .Capabilities.APIVersions. */
  apiVersions?: string[];
  /** Serves `lookup`; without it `lookup` finds nothing, as in `helm template`. */
  lookup?: Lookup;
}

export interface HelmOptions {
  /** A render that takes longer fails and its worker is replaced; default 60 s. */
  timeoutMs?: number;
  /** The worker is stopped after this long without renders; default 5 min. */
  idleMs?: number;
}

interface Pending {
  resolve(yaml: string): void;
  reject(err: Error): void;
  timer: ReturnType<typeof setTimeout>;
  lookup?: Lookup;
}

export class Helm {
  private worker?: Worker;
  private ready?: Promise<void>;
  private rejectReady?: (err: Error) => void;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private idle?: ReturnType<typeof setTimeout>;
  private readonly timeoutMs: number;
  private readonly idleMs: number;

  constructor(options: HelmOptions = {}) {
    this.timeoutMs = options.timeoutMs ?? 60_000;
    this.idleMs = options.idleMs ?? 300_000;
  }

  /** The objects of the chart, Helm hooks turned into gitsync hooks. */
  async render(input: HelmTemplateInput): Promise<KubeObject[]> {
    const objects = parseManifests(await this.template(input), `helm template ${input.releaseName}`);
    return objects.map(gitsyncHooks);
  }

  /** The text `helm template --include-crds --skip-tests` prints for the input. */
  async template(input: HelmTemplateInput): Promise<string> {
    checkVendored(input.chart);
    clearTimeout(this.idle);
    const worker = this.start();
    await this.ready;
    const id = this.nextId++;
    const request = {
      files: [...input.chart],
      values: input.values ?? [],
      releaseName: input.releaseName,
      namespace: input.namespace,
      revision: input.revision ?? 1,
      isUpgrade: input.isUpgrade ?? false,
      kubeVersion: input.kubeVersion ?? DEFAULT_KUBE_VERSION,
      apiVersions: input.apiVersions ?? [],
    };
    return await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.stop(new RenderFailure(`helm template took longer than ${this.timeoutMs / 1000} s`));
      }, this.timeoutMs);
      this.pending.set(id, { resolve, reject, timer, lookup: input.lookup });
      worker.postMessage(
        { type: "render", id, request, lookup: input.lookup !== undefined } satisfies HelmWorkerRequest,
      );
    }).finally(() => {
      if (this.pending.size === 0 && this.worker) {
        this.idle = setTimeout(() => this.stop(new RenderFailure("helm worker stopped")), this.idleMs);
      }
    });
  }

  /** Stops the worker; renders in flight fail. */
  close(): void {
    clearTimeout(this.idle);
    this.stop(new RenderFailure("the Helm renderer was closed"));
  }

  private start(): Worker {
    if (this.worker) return this.worker;
    const worker = startWorker(
      new URL("./helm_worker.ts", import.meta.url),
      "controller/gitsync/render/helm_worker.ts",
    );
    this.worker = worker;
    const failed = (message: string) => this.stop(new RenderFailure(`the Helm renderer ${message}`));
    this.ready = new Promise<void>((resolve, reject) => {
      this.rejectReady = reject;
      worker.onmessage = (e: MessageEvent<HelmWorkerReply>) => {
        const msg = e.data;
        if (msg.type === "ready") resolve();
        else if (msg.type === "failed") failed(`did not start: ${msg.error}`);
        else if (msg.type === "exited") failed("exited");
        else if (msg.type === "lookup") this.answerLookup(worker, msg);
        else this.settle(msg);
      };
      worker.onerror = (e) => {
        e.preventDefault();
        failed(`failed: ${e.message}`);
      };
    });
    this.ready.catch(() => {});
    Promise.all([wasmAsset("helm.wasm"), wasmAsset("wasm_exec.js")]).then(
      ([wasm, glue]) => {
        const init: HelmWorkerRequest = { type: "init", wasm, glue: new TextDecoder().decode(glue) };
        worker.postMessage(init, [wasm.buffer as ArrayBuffer]);
      },
      (err: Error) => failed(`did not start: ${err.message}`),
    );
    return worker;
  }

  private answerLookup(worker: Worker, msg: Extract<HelmWorkerReply, { type: "lookup" }>) {
    const lookup = this.pending.get(msg.id)?.lookup;
    const reply = (r: Omit<Extract<HelmWorkerRequest, { type: "lookup-reply" }>, "type" | "lookupId">) => {
      if (this.worker === worker) worker.postMessage({ type: "lookup-reply", lookupId: msg.lookupId, ...r });
    };
    if (!lookup) return reply({ error: "lookup is not available" });
    lookup(msg.path).then(
      (r) => reply({ status: r.status, body: r.body }),
      (err: Error) => reply({ error: err.message }),
    );
  }

  private settle(msg: Extract<HelmWorkerReply, { type: "rendered" }>) {
    const p = this.pending.get(msg.id);
    if (!p) return;
    this.pending.delete(msg.id);
    clearTimeout(p.timer);
    if (msg.error !== undefined) p.reject(new RenderFailure(`helm template: ${msg.error}`));
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
 * Charts from Git must vendor their dependencies (seed section 8): a Chart.lock (or Chart.yaml
 * dependencies) without a charts/ folder is refused before rendering, with the fix named.
 */
function checkVendored(chart: ReadonlyMap<string, Uint8Array>) {
  if (!chart.has("Chart.yaml")) throw new RenderFailure("no Chart.yaml at the chart's path");
  const hasCharts = [...chart.keys()].some((p) => p.startsWith("charts/"));
  if ((chart.has("Chart.lock") || chart.has("requirements.lock")) && !hasCharts) {
    throw new RenderFailure(
      "the chart has a Chart.lock but no charts/ folder: dependencies must be vendored (run `helm dependency build` and commit charts/)",
    );
  }
}

const HELM_HOOK = "helm.sh/hook";
const PRE = new Set(["pre-install", "pre-upgrade"]);
const POST = new Set(["post-install", "post-upgrade"]);

/** `o` with Helm's hook annotation turned into gitsync's; other Helm hook values are refused. */
export function gitsyncHooks(o: KubeObject): KubeObject {
  const annotations = o.metadata?.annotations;
  const value = annotations?.[HELM_HOOK];
  if (value === undefined) return o;
  const events = value.split(",").map((e) => e.trim()).filter(Boolean);
  const stage = events.length > 0 && events.every((e) => PRE.has(e))
    ? "pre-sync"
    : events.length > 0 && events.every((e) => POST.has(e))
    ? "post-sync"
    : undefined;
  if (!stage) {
    const m = o.metadata ?? {};
    throw new ValidationFailure(
      `${o.kind}/${m.namespace ? `${m.namespace}/` : ""}${m.name}: Helm hook "${value}" is not supported ` +
        "(allowed: pre-install and pre-upgrade as pre-sync, post-install and post-upgrade as post-sync)",
    );
  }
  const { [HELM_HOOK]: _, ...rest } = annotations!;
  return { ...o, metadata: { ...o.metadata, annotations: { ...rest, [HOOK_ANNOTATION]: stage } } };
}
