/**
 * The console's Kubernetes client: a KubeClient whose every request passes assertAllowed() first
 * (GET-only discovery, lists and gets; see read_only_request.ts), that never streams or watches,
 * and that refuses a redirect (a 3xx is never followed; one to another host is named as such).
 *
 *   token mode: the API server's address and CA from the kubeconfig, and the session's token as
 *               the only credential (none of the kubeconfig's user credentials are used)
 *   OIDC mode:  the console's own service-account credentials, impersonating the signed-in user
 *
 * @example
 * const client = ConsoleKubeClient.forToken(cluster, sessionToken);
 * const apps = await client.request({ path: "/apis/sync.gitsync.io/v1alpha1/applications" });
 */
import {
  type ClusterConfig,
  type Impersonation,
  KubeClient,
  type KubeRequest,
  type KubeResponse,
  type QueryValue,
  type ResolvedKubeconfig,
  type WatchEvent,
} from "../../../internal/k8s/mod.ts";
import { assertAllowed, ConsoleRequestRefused } from "./read_only_request.ts";

/** A caller may ask for extra headers only to be refused: the client sets credentials itself. */
export type ConsoleKubeRequest = KubeRequest & { headers?: Record<string, string> };

const USER_AGENT = "gitsync-console";

export class ConsoleKubeClient extends KubeClient {
  /** Reads as the holder of `token`, with nothing of the kubeconfig's user. */
  static forToken(cluster: ClusterConfig, token: string): ConsoleKubeClient {
    const config: ResolvedKubeconfig = {
      files: [],
      contextName: "console",
      cluster,
      user: { name: "console-session", token },
      namespace: "default",
      namespaceFromConfig: false,
      contexts: [],
    };
    return new ConsoleKubeClient(config, { userAgent: USER_AGENT, timeoutMs: 20_000 });
  }

  /** Reads with the console's own credentials acting as `who` (OIDC mode). */
  static impersonating(config: ResolvedKubeconfig, who: Impersonation): ConsoleKubeClient {
    return new ConsoleKubeClient(config, { userAgent: USER_AGENT, timeoutMs: 20_000, impersonate: who });
  }

  override async requestRaw(req: ConsoleKubeRequest): Promise<KubeResponse> {
    assertAllowed({
      method: req.method ?? "GET",
      path: req.path,
      ...(req.query ? { query: req.query } : {}),
      ...(req.headers ? { headers: req.headers } : {}),
    });
    const res = await super.requestRaw({ ...req, method: "GET", body: undefined });
    if (res.status >= 300 && res.status < 400) {
      const location = String(res.headers.location ?? "");
      let otherHost = false;
      try {
        otherHost = new URL(location, this.server).host !== new URL(this.server).host;
      } catch {
        otherHost = true;
      }
      throw new ConsoleRequestRefused(
        otherHost ? "redirect to another host refused" : "redirects are not followed",
        { method: "GET", path: req.path },
      );
    }
    return res;
  }

  // deno-lint-ignore require-yield
  override async *stream(req: KubeRequest): AsyncGenerator<string> {
    throw new ConsoleRequestRefused("streams (logs, watches) are refused", {
      method: req.method ?? "GET",
      path: req.path,
    });
  }

  // deno-lint-ignore require-yield
  override async *watch<T = Record<string, unknown>>(
    path: string,
    _query?: Record<string, QueryValue>,
  ): AsyncGenerator<WatchEvent<T>> {
    throw new ConsoleRequestRefused("watches are refused", { method: "GET", path });
  }
}
