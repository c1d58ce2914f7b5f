/**
 * The narrow clients gitsync's commands, console and reconcilers share: its kinds' paths, reads and
 * writes (resources.ts), and what they reference (secrets.ts). For the CLI: reads with errors a user
 * can act on (reads.ts), approvals (approval.ts), and what --wait waits for (waits.ts, rollout_wait.ts).
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
export { checkRollbackTarget, refuseUnapprovable, requestApproval } from "./approval.ts";
export { getApplication, getOne, getRevision, listAll, revisionOf } from "./reads.ts";
export {
  revisionForCommit,
  waitForFetch,
  waitForPlan,
  waitForRetryTaken,
  waitForRollbackTaken,
} from "./waits.ts";
