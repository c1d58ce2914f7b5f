/**
 * The Kubernetes version templates see (.Capabilities.KubeVersion) when the caller names none. Its own
 * module so `gitsync-manager render --help` can show it without loading the renderers.
 */
export const DEFAULT_KUBE_VERSION = "v1.34.0";
