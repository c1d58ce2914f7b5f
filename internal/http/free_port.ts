import { createServer } from "node:net";

/**
 * A TCP port that was free on `host` a moment ago. Servers that must know their own address before
 * listening (to build their public URL) use it for port 0; the small window before they bind is
 * acceptable for development and tests, which is where port 0 is used.
 */
export function freePort(host = "127.0.0.1"): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, host, () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => (port ? resolve(port) : reject(new Error("no port assigned"))));
    });
  });
}
