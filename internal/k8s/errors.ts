/**
 * The errors internal/k8s raises. Each carries a message a CLI can print as is (one line, kubectl's
 * wording where kubectl has one) and typed fields for callers that branch on the cause.
 */

/** A Kubernetes `Status` object, as the API server returns it with an error. */
export interface KubeStatus {
  kind?: string;
  apiVersion?: string;
  status?: string;
  message?: string;
  reason?: string;
  details?: {
    name?: string;
    group?: string;
    kind?: string;
    uid?: string;
    causes?: { reason?: string; message?: string; field?: string }[];
    retryAfterSeconds?: number;
  };
  code?: number;
}

/** The reason kube-apiserver uses for each HTTP status, for errors whose body is not a Status. */
const REASONS: Record<number, string> = {
  400: "BadRequest",
  401: "Unauthorized",
  403: "Forbidden",
  404: "NotFound",
  405: "MethodNotAllowed",
  406: "NotAcceptable",
  409: "Conflict",
  410: "Expired",
  413: "RequestEntityTooLarge",
  415: "UnsupportedMediaType",
  422: "Invalid",
  429: "TooManyRequests",
  500: "InternalError",
  503: "ServiceUnavailable",
  504: "Timeout",
};

/**
 * The API server refused a request. `message` reads like kubectl's
 * `Error from server (Forbidden): configmaps is forbidden: User "x" cannot list ...`;
 * `serverMessage` is the server's text alone.
 */
export class KubeApiError extends Error {
  override name = "KubeApiError";
  /** HTTP status code. */
  readonly status: number;
  /** The Status reason (`NotFound`, `Forbidden`, `AlreadyExists`, `Conflict`, `Invalid`, ...). */
  readonly reason: string;
  readonly serverMessage: string;
  readonly details: KubeStatus["details"];

  constructor(status: number, body: KubeStatus | string | undefined, method?: string, path?: string) {
    const st = typeof body === "object" && body && body.kind === "Status" ? body : undefined;
    const reason = st?.reason || REASONS[status] || (status >= 500 ? "InternalError" : "Unknown");
    let text = st?.message || (typeof body === "string" ? body.trim().slice(0, 500) : "");
    if (!text) {
      text = status === 404
        ? "the server could not find the requested resource"
        : `the server responded with status ${status}`;
      if (method && path) text += ` (${method} ${path})`;
    }
    super(
      status === 401
        ? `You must be logged in to the server (${text})`
        : `Error from server (${reason}): ${text}`,
    );
    this.status = status;
    this.reason = reason;
    this.serverMessage = text;
    this.details = st?.details;
  }
}

/** True when `err` is a KubeApiError with this reason (or HTTP status). */
export function isKubeApiError(err: unknown, reasonOrStatus?: string | number): err is KubeApiError {
  if (!(err instanceof KubeApiError)) return false;
  if (reasonOrStatus === undefined) return true;
  return typeof reasonOrStatus === "number" ? err.status === reasonOrStatus : err.reason === reasonOrStatus;
}

/** The server could not be reached at all (refused, DNS, TLS verification, timeout). */
export class KubeConnectionError extends Error {
  override name = "KubeConnectionError";

  constructor(readonly server: string, readonly causeText: string, options?: { cause?: unknown }) {
    super(`unable to connect to the server at ${server}: ${causeText}`, options);
  }
}

export type KubeconfigErrorCode =
  | "missing-file"
  | "no-config"
  | "unknown-context"
  | "no-current-context"
  | "unknown-cluster"
  | "unknown-user"
  | "invalid";

/** The kubeconfig cannot be used: missing, unparsable, or naming something it does not define. */
export class KubeconfigError extends Error {
  override name = "KubeconfigError";

  constructor(readonly code: KubeconfigErrorCode, message: string) {
    super(message);
  }
}

/** An exec credential plugin failed or returned something unusable. */
export class ExecPluginError extends Error {
  override name = "ExecPluginError";
}

/** A type word (`edgectl get gatewys`) that discovery does not know. */
export class UnknownResourceTypeError extends Error {
  override name = "UnknownResourceTypeError";

  constructor(readonly word: string, readonly suggestion?: string) {
    super(
      `the server doesn't have a resource type "${word}"` +
        (suggestion ? `; did you mean "${suggestion}"?` : ""),
    );
  }
}

/** A manifest's apiVersion/kind that the server does not serve (e.g. the CRD is not installed). */
export class NoKindMatchError extends Error {
  override name = "NoKindMatchError";

  constructor(readonly apiVersion: string, readonly kind: string) {
    super(
      `no matches for kind "${kind}" in version "${apiVersion}"; ensure CRDs are installed first`,
    );
  }
}

/** A manifest that cannot be read or parsed; names the file and the document index. */
export class ManifestError extends Error {
  override name = "ManifestError";
}
