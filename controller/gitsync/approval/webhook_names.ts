/**
 * Names of the approval webhook's objects, as deploy/gitsync/chart gives them: a module of constants
 * only, so `gitsync-manager run --help` can name them without loading the webhook's code.
 */
export const WEBHOOK_SERVICE = "gitsync-webhook";
export const WEBHOOK_CONFIGURATION = "gitsync-approval";
export const WEBHOOK_CERT_SECRET = "gitsync-webhook-cert";
/** The MutatingWebhookConfiguration `--local-webhook` registers while the manager runs. */
export const LOCAL_WEBHOOK_CONFIGURATION = "gitsync-approval-local";
