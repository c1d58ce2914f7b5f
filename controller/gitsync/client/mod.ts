/**
 * The narrow clients gitsync's commands, console and reconcilers share: its kinds' paths, reads and
 * writes (resources.ts), and what they reference (secrets.ts).
 */
export {
  annotate,
  collectionPath,
  getResource,
  listResources,
  mergePatch,
  objectPath,
  patchStatus,
  type Plural,
} from "./resources.ts";
export {
  ifNotFound,
  type LabelledSecretRef,
  readLabelledSecret,
  readSecret,
  type SecretData,
  secretText,
} from "./secrets.ts";
