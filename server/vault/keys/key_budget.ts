/**
 * The request budget of API keys: a token bucket per key (internal/http's rateLimit), holding
 * VAULT_API_KEY_BURST requests and refilled at VAULT_API_KEY_RATE_PER_MINUTE. Sessions (the web app)
 * are not counted. What an agent spends is its work, not its connection:
 * - a POST to /api/mcp costs one token per JSON-RPC request in it except `initialize`; notifications
 *   (`notifications/initialized`, cancellations) and responses are free, a batch of five calls costs five;
 * - the MCP session's GET stream and its DELETE, and the /ws/vault upgrade, are free;
 * - every other request costs one.
 * A refusal is 429 with Retry-After; on /api/mcp its body is a JSON-RPC error whose message says when to
 * retry, so an MCP client shows the reason instead of a bare status.
 */
import type { Context, MiddlewareHandler } from "hono";
import { rateLimit, type RateLimitBuckets, type Verdict } from "../../../internal/http/mod.ts";
import type { VaultEnv } from "../env.ts";

/** JSON-RPC's implementation-defined server error, as the MCP transport's own refusals use. */
export const RATE_LIMITED_CODE = -32000;

export interface KeyBudgetOptions {
  buckets: RateLimitBuckets;
  /** For the refusal's message. */
  ratePerMinute: number;
  burst: number;
}

export function keyBudget(options: KeyBudgetOptions): MiddlewareHandler<VaultEnv> {
  return rateLimit<VaultEnv>({
    buckets: options.buckets,
    key: (c) => {
      const caller = c.get("caller");
      return caller?.via === "api-token" ? caller.tokenHash : undefined;
    },
    cost: requestCost,
    refuse: (c, verdict) =>
      c.req.path === "/api/mcp" ? mcpRefusal(c, verdict, options) : c.json({
        error: "too many requests",
        retryAfterSeconds: verdict.retryAfterSeconds,
      }, 429),
  });
}

/** Tokens a request made with an API key costs (see the module comment). */
export async function requestCost(c: Context<VaultEnv>): Promise<number> {
  const path = c.req.path;
  if (path === "/ws/vault") return 0;
  if (path !== "/api/mcp") return 1;
  if (c.req.method !== "POST") return 0;
  const messages = await mcpMessages(c);
  // Not JSON-RPC: the transport answers it (400) at the price of one request.
  if (!messages) return 1;
  return messages.filter((m) => typeof m.method === "string" && "id" in m && m.method !== "initialize")
    .length;
}

/** The messages of a POST to /api/mcp (the body is read once: Hono keeps it for the route). */
async function mcpMessages(c: Context<VaultEnv>): Promise<Record<string, unknown>[] | undefined> {
  try {
    const value = JSON.parse(await c.req.text());
    const list = Array.isArray(value) ? value : [value];
    return list.every((m) => m && typeof m === "object" && !Array.isArray(m)) ? list : undefined;
  } catch {
    return undefined;
  }
}

async function mcpRefusal(c: Context<VaultEnv>, verdict: Verdict, o: KeyBudgetOptions): Promise<Response> {
  const messages = await mcpMessages(c);
  const id = messages?.length === 1 && "id" in messages[0]! ? messages[0].id : null;
  const seconds = verdict.retryAfterSeconds;
  return Response.json({
    jsonrpc: "2.0",
    id,
    error: {
      code: RATE_LIMITED_CODE,
      message: `Rate limit exceeded for this API key: retry in ${seconds} s ` +
        `(the vault allows ${o.ratePerMinute} requests per minute per key, ${o.burst} at once).`,
      data: { retryAfterSeconds: seconds },
    },
  }, { status: 429 });
}
