/**
 * Open sockets whose access must end when the access they were opened with ends. /ws/vault channels and
 * /ws/yjs editors register a check (it closes the socket with 1008, or takes an editor's write access
 * away); the checks of a user run
 * - at once, on this process and every replica (replica_bus.ts), when a route ends some access of the
 *   user: a share given to them, one of their API keys, one of their sessions, or the user (`ended`);
 * - every `intervalMs` (VAULT_WS_HEARTBEAT_MS) for every socket, for what ends by itself: an expiry.
 * So a revocation reaches every open socket within the second, wherever it was opened.
 *
 * @example
 * const stop = access.watch(caller.userId, async () => {
 *   if (!(await credentialHolds(db, caller))) socket.close(1008, "credential no longer valid");
 * });
 * // a route that deleted a share:
 * access.ended([share.granteeId]);
 */
import type { Logger } from "../../../internal/log/mod.ts";
import type { ReplicaBus } from "./replica_bus.ts";

export const ACCESS_CHANNEL = "vault_access";

/** What a route needs: tell the sockets that `users`' access changed ("all": a user was removed). */
export interface AccessEnded {
  ended(users: readonly string[] | "all"): void;
}

export interface AccessWatchOptions {
  log: Logger;
  bus?: ReplicaBus;
  intervalMs: number;
}

type Check = () => Promise<void>;

export class AccessWatch implements AccessEnded {
  readonly #byUser = new Map<string, Set<Check>>();
  #timer: ReturnType<typeof setInterval> | undefined;

  constructor(private readonly o: AccessWatchOptions) {}

  async start(): Promise<void> {
    await this.o.bus?.subscribe(ACCESS_CHANNEL, (payload) => {
      const { origin, users } = JSON.parse(payload) as { origin?: string; users?: string[] | "all" };
      if (origin !== this.o.bus?.origin && users) this.#recheck(users);
    });
    this.#timer = setInterval(() => this.#recheck("all"), this.o.intervalMs);
    (this.#timer as { unref?: () => void }).unref?.();
  }

  close(): void {
    clearInterval(this.#timer);
  }

  /** Runs `check` whenever `userId`'s access may have ended, until the returned function is called. */
  watch(userId: string, check: Check): () => void {
    let set = this.#byUser.get(userId);
    if (!set) this.#byUser.set(userId, set = new Set());
    set.add(check);
    return () => {
      set.delete(check);
      if (set.size === 0 && this.#byUser.get(userId) === set) this.#byUser.delete(userId);
    };
  }

  ended(users: readonly string[] | "all"): void {
    this.#recheck(users);
    const bus = this.o.bus;
    if (!bus) return;
    bus.publish(ACCESS_CHANNEL, JSON.stringify({ origin: bus.origin, users }))
      .catch((err) => this.o.log.warn("access change not announced to the replicas", { err }));
  }

  /** Open sockets being watched (for tests and metrics). */
  count(): number {
    let n = 0;
    for (const set of this.#byUser.values()) n += set.size;
    return n;
  }

  #recheck(users: readonly string[] | "all"): void {
    const sets = users === "all" ? [...this.#byUser.values()] : users.map((u) => this.#byUser.get(u));
    for (const set of sets) {
      for (const check of set ?? []) {
        check().catch((err) => this.o.log.warn("socket access not checked", { err }));
      }
    }
  }
}
