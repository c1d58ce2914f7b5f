/** The API group and version of gitsync's kinds (sync.gitsync.io/v1alpha1). */
export const GROUP = "sync.gitsync.io";
export const VERSION = "v1alpha1";
export const API_VERSION = `${GROUP}/${VERSION}`;
