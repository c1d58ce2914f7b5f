/**
 * The live MCP sessions of this process, for both transports: who owns each, when it was last used,
 * the per-user cap on SSE sessions, and reaping of idle ones. Sessions live in this process's
 * memory, so a deployment with several server processes needs sticky routing for /mcp.
 */
import type { Logger } from "../log/mod.ts";
import type { McpServer, WebStandardStreamableHTTPServerTransport } from "./sdk.ts";
import type { SseServerTransport } from "./sse_transport.ts";

interface SessionBase {
  id: string;
  userId: string;
  lastUsed: number;
  /** The session's server, to send it notifications outside any request. */
  server: McpServer;
  close(): Promise<void>;
}

export type Session =
  | SessionBase & { kind: "sse"; transport: SseServerTransport }
  | SessionBase & { kind: "http"; transport: WebStandardStreamableHTTPServerTransport };

export interface SessionLimits {
  /** Concurrent SSE sessions per user (contract: 10; the 11th gets 429). */
  maxSsePerUser: number;
  /** A session not used for this long is closed (contract: 30 minutes without a POST). */
  idleMs: number;
}

export class SessionRegistry {
  readonly #sessions = new Map<string, Session>();
  #reaper: ReturnType<typeof setInterval> | undefined;

  constructor(
    readonly limits: SessionLimits,
    private readonly log: Logger,
    private readonly now = Date.now,
  ) {}

  get(id: string): Session | undefined {
    return this.#sessions.get(id);
  }

  add(session: Session) {
    this.#sessions.set(session.id, session);
  }

  remove(id: string) {
    this.#sessions.delete(id);
  }

  touch(session: Session) {
    session.lastUsed = this.now();
  }

  /** Whether the user may open another SSE session. */
  sseSlotFree(userId: string): boolean {
    let open = 0;
    for (const s of this.#sessions.values()) if (s.kind === "sse" && s.userId === userId) open++;
    return open < this.limits.maxSsePerUser;
  }

  /** The live sessions of one user (to notify them). */
  ofUser(userId: string): Session[] {
    return [...this.#sessions.values()].filter((s) => s.userId === userId);
  }

  count(kind: Session["kind"]): number {
    let n = 0;
    for (const s of this.#sessions.values()) if (s.kind === kind) n++;
    return n;
  }

  /** Closes sessions idle for longer than the limit. */
  async reap(): Promise<number> {
    const cutoff = this.now() - this.limits.idleMs;
    const idle = [...this.#sessions.values()].filter((s) => s.lastUsed < cutoff);
    for (const s of idle) {
      this.#sessions.delete(s.id);
      await s.close().catch(() => {});
    }
    if (idle.length) this.log.info("idle MCP sessions reaped", { count: idle.length });
    return idle.length;
  }

  start() {
    const every = Math.max(1_000, Math.min(60_000, Math.floor(this.limits.idleMs / 4)));
    this.#reaper ??= setInterval(() => void this.reap(), every);
    (this.#reaper as { unref?: () => void }).unref?.();
  }

  async closeAll() {
    clearInterval(this.#reaper);
    const all = [...this.#sessions.values()];
    this.#sessions.clear();
    await Promise.all(all.map((s) => s.close().catch(() => {})));
  }
}
