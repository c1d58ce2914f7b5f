/**
 * What a status badge's colour means, the same in all four apps:
 *   ok      green  the condition is True (Ready, Healthy, Succeeded)
 *   danger  red    the condition is False because something failed
 *   warn    amber  waiting for a person (an approval)
 *   neutral grey   Unknown, in progress, or not reported: nothing to worry about yet
 * Colour comes from the condition's status, never from the words of its reason.
 */
export type Tone = "ok" | "danger" | "warn" | "neutral";

/** A Kubernetes-style condition status: "True", "False", "Unknown", or none. */
export function conditionTone(status: string | undefined): Tone {
  return status === "True" ? "ok" : status === "False" ? "danger" : "neutral";
}

/** gitsync's Revision phases (seed 001, section 3) and the hooks' states. */
const PHASES: Record<string, Tone> = {
  Succeeded: "ok",
  Healthy: "ok",
  Failed: "danger",
  HealthFailure: "danger",
  HookFailed: "danger",
  AwaitingApproval: "warn",
};

/** A phase or state word: failures red, done green, waiting for approval amber, the rest grey. */
export function phaseTone(phase: string | undefined): Tone {
  return (phase && PHASES[phase]) || "neutral";
}

/** gitsync's health assessments (Healthy, Progressing, Degraded, Missing, Suspended, Unknown). */
export function healthTone(health: string | undefined): Tone {
  return health === "Healthy" ? "ok" : health === "Degraded" || health === "Missing" ? "danger" : "neutral";
}
