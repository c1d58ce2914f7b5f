/**
 * Which requests only read, so a bridge may send them again after a refusal: MCP's listing, reading
 * and ping methods, and `tools/call` of a tool the server marked `annotations.readOnlyHint: true` in
 * its `tools/list` answer. Anything else (a tool without the hint, a method this code does not know)
 * counts as a write, and a write is never sent twice: the first attempt may have done its work.
 */
import type { Frame } from "./jsonrpc.ts";
import { messagesOf } from "./jsonrpc.ts";

const READ_METHODS = new Set([
  "ping",
  "tools/list",
  "resources/list",
  "resources/templates/list",
  "resources/read",
  "prompts/list",
  "prompts/get",
  "completion/complete",
]);

export class ReadRequests {
  /** Tool name -> whether its last listing marked it read-only. */
  readonly #readOnlyTools = new Map<string, boolean>();

  /** Learns the read-only tools from the answer to a `tools/list` request. */
  learn(request: Frame, answer: Record<string, unknown>): void {
    if (Array.isArray(request) || request.method !== "tools/list") return;
    const tools = (answer.result as { tools?: unknown } | undefined)?.tools;
    if (!Array.isArray(tools)) return;
    for (const tool of tools as { name?: unknown; annotations?: { readOnlyHint?: unknown } }[]) {
      if (typeof tool?.name === "string") {
        this.#readOnlyTools.set(tool.name, tool.annotations?.readOnlyHint === true);
      }
    }
  }

  /** True when every request in the frame only reads. */
  isRead(frame: Frame): boolean {
    return messagesOf(frame).every((m) => {
      if (m.method === "tools/call") {
        const name = (m.params as { name?: unknown } | undefined)?.name;
        return typeof name === "string" && this.#readOnlyTools.get(name) === true;
      }
      return typeof m.method === "string" && READ_METHODS.has(m.method);
    });
  }
}
