import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { type ConsoleRequest, refusal } from "./read_only_request.ts";
import { ConsoleKubeClient } from "./console_kube_client.ts";
import { ConsoleRequestRefused } from "./read_only_request.ts";

const get = (path: string, more: Partial<ConsoleRequest> = {}): ConsoleRequest => ({
  method: "GET",
  path,
  ...more,
});

describe("refusal: what the console may ask the API server", () => {
  const allowed: [string, ConsoleRequest][] = [
    ["core discovery", get("/api")],
    ["core v1 discovery", get("/api/v1")],
    ["group discovery", get("/apis")],
    ["group version discovery", get("/apis/sync.gitsync.io/v1alpha1")],
    ["version", get("/version")],
    ["list across namespaces", get("/apis/sync.gitsync.io/v1alpha1/applications")],
    ["list in a namespace", get("/apis/sync.gitsync.io/v1alpha1/namespaces/team/revisions")],
    ["get one", get("/apis/apps/v1/namespaces/team/deployments/web")],
    ["get a namespace", get("/api/v1/namespaces/team")],
    ["a namespace named secrets", get("/api/v1/namespaces/secrets/configmaps")],
    ["an object named secrets", get("/api/v1/namespaces/team/configmaps/secrets")],
    ["label selector", get("/api/v1/namespaces/team/pods", { query: { labelSelector: "a=b" } })],
    ["watch=false", get("/api/v1/namespaces/team/pods", { query: { watch: "false" } })],
    ["accept header", get("/api/v1/pods", { headers: { Accept: "application/json" } })],
  ];
  for (const [name, req] of allowed) {
    it(`allows ${name}`, () => assert.equal(refusal(req), undefined));
  }

  const refused: [string, ConsoleRequest, RegExp][] = [
    ["POST", { method: "POST", path: "/api/v1/namespaces/team/configmaps" }, /GET only/],
    ["PUT", { method: "PUT", path: "/api/v1/namespaces/team/configmaps/a" }, /GET only/],
    ["PATCH", { method: "PATCH", path: "/api/v1/namespaces/team/configmaps/a" }, /GET only/],
    ["DELETE", { method: "DELETE", path: "/api/v1/namespaces/team/configmaps/a" }, /GET only/],
    ["HEAD", { method: "HEAD", path: "/api/v1/namespaces/team/configmaps/a" }, /GET only/],
    ["secrets", get("/api/v1/namespaces/team/secrets"), /Secrets/],
    ["one Secret", get("/api/v1/namespaces/team/secrets/db"), /Secrets/],
    ["Secrets capitalised", get("/api/v1/namespaces/team/Secrets"), /Secrets/],
    ["SECRETS", get("/api/v1/namespaces/team/SECRETS/db"), /Secrets/],
    ["singular secret", get("/api/v1/namespaces/team/secret/db"), /Secrets/],
    ["secrets across namespaces", get("/api/v1/secrets"), /Secrets/],
    ["core/v1 as a group", get("/apis/core/v1/namespaces/team/secrets"), /Secrets/],
    ["secrets with a group suffix", get("/api/v1/namespaces/team/secrets.v1."), /Secrets/],
    ["percent-encoded secrets", get("/api/v1/namespaces/team/%73ecrets"), /Secrets/],
    ["encoded slash", get("/api/v1/namespaces/team%2Fsecrets"), /plain absolute path/],
    ["dot segments", get("/api/v1/namespaces/team/configmaps/../secrets"), /segments/],
    ["double slash", get("/api/v1//secrets"), /segments/],
    ["a query in the path", get("/api/v1/pods?watch=true"), /plain absolute path/],
    ["secret subresource", get("/api/v1/namespaces/team/secrets/db/status"), /Secrets/],
    ["pod logs", get("/api/v1/namespaces/team/pods/web/log"), /subresources \(log\)/],
    ["exec", get("/api/v1/namespaces/team/pods/web/exec"), /subresources \(exec\)/],
    ["attach", get("/api/v1/namespaces/team/pods/web/attach"), /subresources \(attach\)/],
    ["port-forward", get("/api/v1/namespaces/team/pods/web/portforward"), /subresources/],
    ["service proxy", get("/api/v1/namespaces/team/services/web/proxy/x"), /subresources/],
    ["node proxy", get("/api/v1/nodes/n1/proxy"), /subresources \(proxy\)/],
    ["legacy proxy path", get("/api/v1/proxy/namespaces/team/pods/web"), /proxy/],
    ["status subresource", get("/apis/apps/v1/namespaces/team/deployments/web/status"), /subresources/],
    ["namespace finalize", get("/api/v1/namespaces/team/finalize"), /subresources/],
    ["watch query", get("/api/v1/namespaces/team/pods", { query: { watch: "true" } }), /watches/],
    ["watch=1", get("/api/v1/pods", { query: { watch: 1 } }), /watches/],
    ["watch boolean", get("/api/v1/pods", { query: { Watch: true } }), /watches/],
    ["legacy watch path", get("/api/v1/watch/namespaces/team/pods"), /watches/],
    [
      "other Authorization",
      get("/api/v1/pods", { headers: { Authorization: "Bearer other" } }),
      /Authorization/,
    ],
    ["Impersonate-User", get("/api/v1/pods", { headers: { "Impersonate-User": "admin" } }), /Impersonate/],
    ["Impersonate-Group", get("/api/v1/pods", { headers: { "impersonate-group": "x" } }), /Impersonate/],
    ["Impersonate-Uid", get("/api/v1/pods", { headers: { "Impersonate-Uid": "1" } }), /Impersonate/],
    ["Upgrade", get("/api/v1/pods", { headers: { Upgrade: "SPDY/3.1" } }), /upgrade/],
    ["Connection: Upgrade", get("/api/v1/pods", { headers: { Connection: "Upgrade" } }), /upgrade/],
    ["non-API path", get("/metrics"), /only the API/],
    ["logs endpoint", get("/logs/kube-apiserver.log"), /only the API/],
    ["relative path", get("api/v1/pods"), /plain absolute path/],
  ];
  for (const [name, req, reason] of refused) {
    it(`refuses ${name}`, () => assert.match(refusal(req) ?? "(allowed)", reason));
  }
});

describe("ConsoleKubeClient", () => {
  let server: ReturnType<typeof createServer>;
  let url = "";
  const seen: { method: string; url: string; authorization?: string; impersonate?: string }[] = [];
  before(async () => {
    server = createServer((req, res) => {
      seen.push({
        method: req.method!,
        url: req.url!,
        ...(req.headers.authorization ? { authorization: req.headers.authorization } : {}),
        ...(req.headers["impersonate-user"] ? { impersonate: String(req.headers["impersonate-user"]) } : {}),
      });
      if (req.url!.startsWith("/api/v1/namespaces/away")) {
        res.writeHead(302, { location: "http://elsewhere.example/api/v1/pods" }).end();
      } else if (req.url!.startsWith("/api/v1/namespaces/here")) {
        res.writeHead(302, { location: "/api/v1/pods" }).end();
      } else res.writeHead(200, { "content-type": "application/json" }).end('{"items":[]}');
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((r) => server.close(() => r())));

  const cluster = () => ({ name: "c", server: url, insecureSkipTlsVerify: false });

  it("sends only the session's token, and GET", async () => {
    const client = ConsoleKubeClient.forToken(cluster(), "session-token");
    try {
      seen.length = 0;
      await client.request({ path: "/api/v1/namespaces/team/configmaps" });
      assert.deepEqual(seen, [{
        method: "GET",
        url: "/api/v1/namespaces/team/configmaps",
        authorization: "Bearer session-token",
      }]);
    } finally {
      client.close();
    }
  });

  it("refuses before sending: nothing reaches the server", async () => {
    const client = ConsoleKubeClient.forToken(cluster(), "t");
    try {
      seen.length = 0;
      await assert.rejects(
        client.request({ path: "/api/v1/namespaces/team/secrets" }),
        ConsoleRequestRefused,
      );
      await assert.rejects(
        client.request({ method: "DELETE", path: "/api/v1/namespaces/team/configmaps/a" }),
        /GET only/,
      );
      await assert.rejects(
        client.requestRaw({ path: "/api/v1/pods", headers: { "Impersonate-User": "admin" } }),
        /Impersonate/,
      );
      await assert.rejects(async () => {
        for await (const _ of client.watch("/api/v1/pods")) break;
      }, /watches are refused/);
      await assert.rejects(async () => {
        for await (const _ of client.stream({ path: "/api/v1/namespaces/t/pods/p/log" })) break;
      }, /streams/);
      assert.deepEqual(seen, []);
    } finally {
      client.close();
    }
  });

  it("refuses redirects, naming one to another host", async () => {
    const client = ConsoleKubeClient.forToken(cluster(), "t");
    try {
      await assert.rejects(
        client.request({ path: "/api/v1/namespaces/away" }),
        /redirect to another host refused/,
      );
      await assert.rejects(client.request({ path: "/api/v1/namespaces/here" }), /redirects are not followed/);
    } finally {
      client.close();
    }
  });
});
