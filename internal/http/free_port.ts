import { createServer } from "node:net";

/** A free TCP port kept bound until `release()`, so no other process is handed it meanwhile. */
export interface HeldPort {
  port: number;
  /** Unbinds the port (once; later calls wait for the same close). */
  release(): Promise<void>;
}

/**
 * Binds port 0 on `host` and keeps it. A server that must know its own address before it listens
 * (to build its public URL) holds the port while it starts and releases it just before listening:
 * a port merely seen free can be handed to another process during a start of several seconds.
 */
export function holdFreePort(host = "127.0.0.1"): Promise<HeldPort> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, host, () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      let released: Promise<void> | undefined;
      const release = () => released ??= new Promise<void>((done) => server.close(() => done()));
      if (port) resolve({ port, release });
      else release().then(() => reject(new Error("no port assigned")));
    });
  });
}

/**
 * A TCP port that was free on `host` a moment ago, for a child process that binds it itself; the
 * window before it does is acceptable for development and tests, which is where port 0 is used.
 */
export async function freePort(host = "127.0.0.1"): Promise<number> {
  const held = await holdFreePort(host);
  await held.release();
  return held.port;
}
