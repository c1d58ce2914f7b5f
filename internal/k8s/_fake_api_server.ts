/**
 * Test helper: a plain-HTTP stand-in for kube-apiserver whose answers a test scripts, recording
 * every request. Real API behaviour is tested against kube-apiserver in test/k8s/.
 */
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import type { ResolvedKubeconfig, UserConfig } from "./kubeconfig.ts";

export interface SeenRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface Reply {
  status?: number;
  contentType?: string;
  headers?: Record<string, string>;
  body?: unknown;
}

export interface FakeApiServer {
  url: string;
  requests: SeenRequest[];
  config(user?: Partial<UserConfig>, basePath?: string): ResolvedKubeconfig;
  close(): Promise<void>;
}

export async function startFakeApiServer(handle: (req: SeenRequest) => Reply): Promise<FakeApiServer> {
  const requests: SeenRequest[] = [];
  const server = createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (d) => (body += d));
    req.on("end", () => {
      const seen = { method: req.method ?? "", url: req.url ?? "", headers: req.headers, body };
      requests.push(seen);
      const reply = handle(seen);
      const text = typeof reply.body === "string" ? reply.body : JSON.stringify(reply.body ?? {});
      res.writeHead(reply.status ?? 200, {
        "Content-Type": reply.contentType ?? "application/json",
        ...reply.headers,
      });
      res.end(text);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    requests,
    config: (user = {}, basePath = "") => ({
      files: [],
      contextName: "fake",
      cluster: { name: "fake", server: `${url}${basePath}`, insecureSkipTlsVerify: false },
      user: { name: "u", ...user },
      namespace: "default",
      namespaceFromConfig: false,
      contexts: ["fake"],
    }),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections?.();
        server.close(() => resolve());
      }),
  };
}
