/**
 * Who is making the current change, carried through the request's async context so the note
 * store's change callback can name it in the live events without every write passing it along:
 * the web app's `X-Vault-Client-Id` (so a tab drops its own echoes), or the MCP agent.
 */
import { AsyncLocalStorage } from "node:async_hooks";

export interface Actor {
  clientId?: string;
  agentId?: string;
  agentName?: string;
}

const current = new AsyncLocalStorage<Actor>();

export function runAs<T>(actor: Actor, fn: () => T): T {
  return current.run(actor, fn);
}

export function currentActor(): Actor {
  return current.getStore() ?? {};
}

/** The header the web app sends with its writes; anything but a short token is ignored. */
export const CLIENT_ID_HEADER = "X-Vault-Client-Id";

export function clientIdOf(value: string | undefined): string | undefined {
  return value && /^[A-Za-z0-9_-]{1,100}$/.test(value) ? value : undefined;
}
