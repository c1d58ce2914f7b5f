/**
 * The live event channel (/ws/vault): tree, tag and note changes made elsewhere (another tab,
 * another user's shared notes, an AI agent through MCP, the files on disk). Our own writes come back
 * with this tab's client id and are dropped. Reconnects with backoff.
 */
import { CLIENT_ID } from "./api.ts";

export interface VaultEvent {
  kind: string;
  path?: string;
  from?: string;
  to?: string;
  ownerId?: string;
  clientId?: string | null;
  agentName?: string | null;
}

const BACKOFF_MS = [500, 1000, 2000, 5000, 10000, 30000];

/**
 * Calls `onEvent` for each change made elsewhere, and `onConnected` each time the socket (re)opens:
 * what changed while it was down was not sent, so the caller reloads what it shows.
 */
export function watchVault(onEvent: (e: VaultEvent) => void, onConnected: () => void): () => void {
  let ws: WebSocket | undefined;
  let attempt = 0;
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const connect = () => {
    ws = new WebSocket(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws/vault`);
    ws.onopen = () => void (attempt = 0);
    ws.onmessage = (m) => {
      let e: VaultEvent;
      try {
        e = JSON.parse(String(m.data));
      } catch {
        return;
      }
      if (e.kind === "hello") return onConnected();
      if (e.kind === "heartbeat" || e.kind === "pong") return;
      if (e.clientId === CLIENT_ID) return;
      onEvent(e);
    };
    ws.onclose = () => {
      if (stopped) return;
      timer = setTimeout(connect, BACKOFF_MS[Math.min(attempt++, BACKOFF_MS.length - 1)]);
    };
  };
  connect();
  return () => {
    stopped = true;
    clearTimeout(timer);
    ws?.close();
  };
}

/**
 * `fn` at most once per `ms`: the first call schedules it, the calls until it runs join that run. A
 * burst of events (a folder copied in on disk) costs a reload every `ms`, not one per file.
 */
export function coalesce(fn: () => void, ms: number): { (): void; cancel(): void } {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const call = () => {
    timer ??= setTimeout(() => {
      timer = undefined;
      fn();
    }, ms);
  };
  call.cancel = () => {
    clearTimeout(timer);
    timer = undefined;
  };
  return call;
}
