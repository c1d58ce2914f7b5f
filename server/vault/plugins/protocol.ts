/**
 * Messages between the vault and a plugin's sandbox process: one JSON object per line, on the child's
 * stdin (to the plugin) and stdout (from it, each line marked with LINE_MARK so whatever else the
 * plugin prints is only logged). Every call carries an id; its reply names it.
 */

/** Starts a line of the protocol on the sandbox's stdout. */
export const LINE_MARK = "\u001evault-plugin:";

/** The argument of the vault binary that runs a plugin sandbox instead of the CLI. */
export const SANDBOX_ARG = "__plugin-sandbox";

export interface RouteRequest {
  method: string;
  /** The path below /api/plugins/<id>, starting with "/". */
  path: string;
  query: Record<string, string>;
  body: unknown;
  user: { id: string };
}

/** A plugin route's answer: `{status, body}`, or any JSON value as a 200 body. */
export interface RouteAnswer {
  status: number;
  body: unknown;
}

export type ToSandbox =
  | { t: "activate"; id: number; entry: string; plugin: { id: string; version: string } }
  | { t: "route"; id: number; route: string; request: RouteRequest }
  | { t: "event"; id: number; event: string; payload: unknown }
  | { t: "deactivate"; id: number }
  | { t: "reply"; id: number; ok: true; value: unknown }
  | { t: "reply"; id: number; ok: false; error: string };

/** A call the vault makes, before its id is given. */
export type SandboxCall = ToSandbox extends infer M
  ? M extends { t: "activate" | "route" | "event" | "deactivate" } ? Omit<M, "id"> : never
  : never;

export type FromSandbox =
  /** A host API call; `call` is the id of the vault's call it runs under (whose user it acts as). */
  | { t: "api"; id: number; method: string; args: unknown[]; call?: number }
  | { t: "reply"; id: number; ok: true; value: unknown }
  | { t: "reply"; id: number; ok: false; error: string }
  /** The sandbox runs and listens (its start does not count against a call's time limit). */
  | { t: "ready" }
  | { t: "route"; method: string; path: string; name?: string; description?: string }
  | { t: "subscribe"; event: string }
  | { t: "log"; level: "debug" | "info" | "warn" | "error"; msg: string; fields?: Record<string, unknown> };

/** The vault events a plugin may subscribe to (api.events.on). */
export const PLUGIN_EVENTS = ["note:afterSave", "note:afterDelete", "note:afterRename"] as const;
export type PluginEvent = (typeof PLUGIN_EVENTS)[number];
