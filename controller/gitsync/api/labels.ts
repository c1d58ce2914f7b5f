/**
 * The labels and annotations gitsync reads and writes, each named once. All live under the API group's
 * prefix `sync.gitsync.io/`.
 */
import { GROUP } from "./group.ts";

/** The prefix of every gitsync label and annotation. */
export const ANNOTATION = `${GROUP}/`;

// Labels.
/** On every object an Application manages, and on its Revisions: the Application's name. */
export const APPLICATION_LABEL = `${ANNOTATION}application`;
/** On a discovered Application: the Repository whose .gitsync.yaml declares it. */
export const REPOSITORY_LABEL = `${ANNOTATION}repository`;
/** `=true` on a Secret that may serve as a Repository's Git credentials. */
export const GIT_CREDENTIALS_LABEL = `${ANNOTATION}git-credentials`;
/** `=true` on a Secret that may serve as registry or chart repository credentials. */
export const REGISTRY_CREDENTIALS_LABEL = `${ANNOTATION}registry-credentials`;
/** `=true` on a Secret whose age keys may decrypt an Application's SOPS files. */
export const DECRYPTION_KEY_LABEL = `${ANNOTATION}decryption-key`;

// Annotations on the objects in Git.
/** pre-sync, post-sync, or skip. */
export const HOOK_ANNOTATION = `${ANNOTATION}hook`;
/** An integer; default 0, negatives allowed. */
export const WAVE_ANNOTATION = `${ANNOTATION}sync-wave`;
/** `disabled` keeps an object when a Revision no longer has it. */
export const PRUNE_ANNOTATION = `${ANNOTATION}prune`;
/** On a hook object: the rollout it belongs to. */
export const HOOK_ROLLOUT_ANNOTATION = `${ANNOTATION}hook-rollout`;
/** On a discovered Application: the .gitsync.yaml that declares it. */
export const DISCOVERED_FROM_ANNOTATION = `${ANNOTATION}discovered-from`;

// Annotations people (through the CLI) and the admission webhook set on an Application.
/** The Revision a person approves. */
export const APPROVED_REVISION = `${ANNOTATION}approved-revision`;
/** The plan digest the person reviewed; checked by the webhook, never stored. */
export const APPROVE_DIGEST = `${ANNOTATION}approve-digest`;
/** Recorded by the webhook from the authenticated request. */
export const APPROVED_BY = `${ANNOTATION}approved-by`;
export const APPROVED_AT = `${ANNOTATION}approved-at`;
export const APPROVED_DIGEST = `${ANNOTATION}approved-digest`;
/** A rollback is requested by setting this (any new value, e.g. the time); `gitsync rollback` does. */
export const ROLLBACK_REQUESTED_AT = `${ANNOTATION}rollback-requested-at`;
/** Who asked for it, recorded by the webhook from the authenticated request. */
export const ROLLBACK_REQUESTED_BY = `${ANNOTATION}rollback-requested-by`;
/** Set with rollback-requested-at (`gitsync rollback --to-revision`): the Revision to roll back to. */
export const ROLLBACK_TO_REVISION = `${ANNOTATION}rollback-to-revision`;
/** Set by `gitsync retry`: the desired Revision, Failed with a retryable reason, rolls out again. */
export const RETRY_REQUESTED_AT = `${ANNOTATION}retry-requested-at`;

/** On the manager's own webhook certificate Secret: until when the CA it replaced is still trusted. */
export const CA_PREVIOUS_UNTIL_ANNOTATION = `${ANNOTATION}ca-previous-until`;

/** On a Repository or ImagePolicy (the push receiver, `gitsync sync`): reconcile now. */
export const RECONCILE_REQUESTED_AT = `${ANNOTATION}reconcile-requested-at`;
