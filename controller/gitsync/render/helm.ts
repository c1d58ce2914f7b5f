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
import { DEFAULT_KUBE_VERSION } from "./kube_version.ts";
import type { KubeObject } from "../../../internal/k8s/mod.ts";
import { ValidationFailure } from "../rollout/groups.ts";
import { RenderFailure } from "./failure.ts";
import { GoWasmWorker } from "./go_wasm_worker.ts";
import { parseManifests } from "./plain_yaml.ts";
import { HOOK_ANNOTATION } from "../api/mod.ts";

/** An answer to one GET of Helm's `lookup` (discovery, get or list), as the API server gave it. */
export interface LookupResponse {
  status: number;
  body: string;
}

/** Serves the GETs of Helm's `lookup` (path with query, e.g. `/api/v1/namespaces/a/configmaps/b`). */
export type Lookup = (path: string) => Promise<LookupResponse>;

/** The messages between helm.ts and helm_worker.ts besides go_wasm_worker.ts's lifecycle. */
export type HelmCall = { type: "render"; request: Record<string, unknown>; lookup: boolean };
export type HelmLookup = { type: "lookup"; id: number; lookupId: number; path: string };
export type HelmLookupReply = {
  type: "lookup-reply";
  lookupId: number;
  status?: number;
  body?: string;
  error?: string;
};
export type HelmResult = { type: "result"; id: number; yaml?: string; error?: string; ms: number };

export { DEFAULT_KUBE_VERSION } from "./kube_version.ts";

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

export class Helm {
  private readonly go: GoWasmWorker<Lookup>;

  constructor(options: HelmOptions = {}) {
    this.go = new GoWasmWorker<Lookup>({
      name: "Helm",
      command: "helm template",
      wasm: "helm.wasm",
      script: new URL("./helm_worker.ts", import.meta.url),
      entry: "controller/gitsync/render/helm_worker.ts",
      ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
      ...(options.idleMs !== undefined ? { idleMs: options.idleMs } : {}),
      onMessage: (msg, lookup, reply) => {
        if (msg.type === "lookup") answerLookup(msg as HelmLookup, lookup, reply);
      },
    });
  }

  /** The objects of the chart, Helm hooks turned into gitsync hooks. */
  async render(input: HelmTemplateInput): Promise<KubeObject[]> {
    const objects = parseManifests(await this.template(input), `helm template ${input.releaseName}`);
    return objects.map(gitsyncHooks);
  }

  /** The text `helm template --include-crds --skip-tests` prints for the input. */
  async template(input: HelmTemplateInput): Promise<string> {
    checkVendored(input.chart);
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
    const call: HelmCall = { type: "render", request, lookup: input.lookup !== undefined };
    const r = await this.go.call<HelmResult>(call, input.lookup);
    if (r.error !== undefined) throw new RenderFailure(`helm template: ${r.error}`);
    return r.yaml ?? "";
  }

  /** Stops the worker; renders in flight fail. */
  close(): void {
    this.go.close();
  }
}

/** Serves one GET of a render's `lookup` with the caller's function (the Application's account). */
function answerLookup(msg: HelmLookup, lookup: Lookup | undefined, reply: (m: HelmLookupReply) => void) {
  const answer = (r: Omit<HelmLookupReply, "type" | "lookupId">) =>
    reply({ type: "lookup-reply", lookupId: msg.lookupId, ...r });
  if (!lookup) return answer({ error: "lookup is not available" });
  lookup(msg.path).then(
    (r) => answer({ status: r.status, body: r.body }),
    (err: Error) => answer({ error: err.message }),
  );
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
