import type { Logger } from "../log/mod.ts";
import type { PeerInfo } from "../platform/mod.ts";

/** The Hono environment shared by every server: the listener's peer info and per-request values. */
export interface AppEnv {
  Bindings: PeerInfo;
  Variables: {
    /** The id on the X-Request-Id response header and on every log line of the request. */
    requestId: string;
    /** The client's address: the TCP peer, or the forwarding client when the peer is a trusted proxy. */
    clientIp: string;
    /** The server logger bound to this request's id. */
    log: Logger;
  };
}
