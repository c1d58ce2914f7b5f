/**
 * Messages between the vault processes that share one PostgreSQL server (replicas): `publish` is a
 * NOTIFY on a connection of its own (never queued behind the requests' queries on the shared pool:
 * another replica may be waiting for the message to tell an event right), and one LISTEN connection
 * per process hands each channel's payloads to its subscribers. A process's own messages come back to it too; payloads carry the sender's `origin`
 * so a subscriber can skip them. On the embedded database there is one process and no bus.
 *
 * @example
 * const bus = new ReplicaBus(url, log);
 * await bus.subscribe("vault_events", (payload) => ...);
 * await bus.publish("vault_events", JSON.stringify({ origin: bus.origin, ... }));
 */
import postgres from "postgres";
import type { Logger } from "../../../internal/log/mod.ts";

export class ReplicaBus {
  /** This process's id in the messages it publishes. */
  readonly origin = crypto.randomUUID();
  readonly #listener: postgres.Sql;
  readonly #publisher: postgres.Sql;

  constructor(url: string, private readonly log: Logger) {
    this.#listener = postgres(url, { max: 1, onnotice: () => {} });
    this.#publisher = postgres(url, { max: 1, onnotice: () => {} });
  }

  /** Calls `handler` with every payload published on `channel` by any process, this one included. */
  async subscribe(channel: string, handler: (payload: string) => void): Promise<void> {
    await this.#listener.listen(channel, (payload) => {
      try {
        handler(payload);
      } catch (err) {
        this.log.warn("replica message not handled", { channel, err });
      }
    });
  }

  /** Sends `payload` (at most 8000 bytes, PostgreSQL's limit) to every process's subscribers. */
  async publish(channel: string, payload: string): Promise<void> {
    await this.#publisher.notify(channel, payload);
  }

  async close(): Promise<void> {
    await Promise.all([this.#listener.end({ timeout: 2 }), this.#publisher.end({ timeout: 2 })]);
  }
}
