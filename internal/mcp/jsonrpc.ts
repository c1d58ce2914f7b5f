/**
 * Just enough JSON-RPC 2.0 to route frames the bridge does not otherwise interpret: which requests a
 * frame (one message or a batch) carries, and which messages answer them. Everything else passes
 * through untouched, so methods this code has never heard of are forwarded like any other.
 */

export type JsonRpcId = string | number;

/** A JSON-RPC message or a batch of them, as read from stdin or from the server. */
export type Frame = Record<string, unknown> | Record<string, unknown>[];

/** The JSON-RPC error code for "server error"; every failure the bridge reports itself uses it. */
export const BRIDGE_ERROR = -32000;

export type Parsed = { ok: true; frame: Frame } | { ok: false; code: number; message: string };

/** Parses a JSON-RPC frame, or says which JSON-RPC error it deserves. */
export function parseFrame(text: string): Parsed {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, code: -32700, message: "Parse error: not JSON" };
  }
  const valid = Array.isArray(value) ? value.length > 0 && value.every(isMessage) : isMessage(value);
  if (!valid) return { ok: false, code: -32600, message: "Invalid Request: not a JSON-RPC 2.0 message" };
  return { ok: true, frame: value as Frame };
}

/** The ids of the requests in a frame: the responses the sender is waiting for. */
export function requestIds(frame: Frame): JsonRpcId[] {
  const ids: JsonRpcId[] = [];
  for (const message of messagesOf(frame)) {
    if (typeof message.method === "string" && isId(message.id)) ids.push(message.id);
  }
  return ids;
}

/** The id a message answers, when it is a response (a result or an error, not a request). */
export function respondsTo(message: Record<string, unknown>): JsonRpcId | undefined {
  if (typeof message.method === "string" || !("result" in message || "error" in message)) return undefined;
  return isId(message.id) ? message.id : undefined;
}

export function isInitializeRequest(frame: Frame): frame is Record<string, unknown> & { id: JsonRpcId } {
  return !Array.isArray(frame) && frame.method === "initialize" && isId(frame.id);
}

export function isNotification(frame: Frame, method: string): frame is Record<string, unknown> {
  return !Array.isArray(frame) && frame.method === method && !("id" in frame);
}

export function messagesOf(frame: Frame): Record<string, unknown>[] {
  return Array.isArray(frame) ? frame : [frame];
}

export function errorResponse(id: JsonRpcId | null, code: number, message: string) {
  return { jsonrpc: "2.0", id, error: { code, message } };
}

function isId(value: unknown): value is JsonRpcId {
  return typeof value === "string" || typeof value === "number";
}

function isMessage(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) &&
    (value as { jsonrpc?: unknown }).jsonrpc === "2.0";
}
