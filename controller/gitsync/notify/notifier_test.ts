/**
 * Delivery rules of the notifier against a real HTTPS server on loopback: signature, retries with backoff,
 * no redirects, event filters, and failures that never carry the sink URL. The sink and its Secret come
 * from a stand-in for the API client (the engine test reads them from a real kube-apiserver).
 */
import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { KubeApiError, type KubeClient } from "../../../internal/k8s/mod.ts";
import { servingCertificate } from "../../../test/harness/serving_cert.ts";
import { type Notification, Notifier, readSink, slackText, webhookBody } from "./notifier.ts";

const b64 = (s: string) => Buffer.from(s).toString("base64");

/** A client answering GETs of NotificationSinks and Secrets from maps. */
function fakeClient(sinks: Record<string, unknown>, secrets: Record<string, Record<string, string>>) {
  return {
    request({ path }: { path: string }) {
      const name = path.split("/").at(-1)!;
      const found = path.includes("/notificationsinks/") ? sinks[name] : secrets[name] &&
        { data: Object.fromEntries(Object.entries(secrets[name]!).map(([k, v]) => [k, b64(v)])) };
      if (!found) {
        return Promise.reject(
          new KubeApiError(404, { kind: "Status", reason: "NotFound", message: "not found" }),
        );
      }
      return Promise.resolve(found);
    },
  } as unknown as KubeClient;
}

const notification: Notification = {
  event: "AwaitingApproval",
  application: { namespace: "shop", name: "web" },
  revision: "web-0a1b2c3d4e",
  sourceRevision: "0123456789abcdef0123456789abcdef01234567",
  message: "plan sha256:abc waits for approval",
  planSummary: { create: 1, update: 0, unchanged: 2, prune: 0 },
  planDigest: "sha256:abc",
};

describe("notifier", () => {
  let dir: string;
  let server: Server;
  let url: string;
  let ca: string;
  /** Status codes to answer, in order; 204 when empty. */
  let answers: number[] = [];
  const received: { path: string; headers: Record<string, unknown>; body: string }[] = [];

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "notifier-"));
    const cert = await servingCertificate(dir, "sink");
    ca = readFileSync(cert.certFile, "utf8");
    server = createServer({ cert: ca, key: readFileSync(cert.keyFile) }, (req, res) => {
      let body = "";
      req.on("data", (d) => (body += d));
      req.on("end", () => {
        received.push({ path: req.url ?? "", headers: req.headers, body });
        const status = answers.shift() ?? 204;
        res.writeHead(status, status === 302 ? { location: "http://elsewhere.example/" } : {}).end();
      });
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    server.close();
    server.closeAllConnections?.();
    await rm(dir, { recursive: true, force: true });
  });

  const setup = (secret: Record<string, string>, type = "webhook") => {
    const failures: string[] = [];
    const notifier = new Notifier({
      client: fakeClient({ sink: { spec: { type, secretRef: { name: "s" } } } }, { s: secret }),
      onFailed: (_n, sink, message) => failures.push(`${sink}: ${message}`),
      backoffMs: [10, 20],
    });
    return { notifier, failures };
  };

  it("signs the webhook body with the hmacKey, trusting the Secret's ca.crt", async () => {
    received.length = 0;
    const { notifier, failures } = setup({ url: `${url}/hook`, hmacKey: "k3y", "ca.crt": ca });
    notifier.notify([{ sinkRef: { name: "sink" } }], notification);
    await notifier.settled();
    assert.deepEqual(failures, []);
    assert.equal(received.length, 1);
    const [r] = received;
    assert.equal(
      r!.headers["x-gitsync-signature"],
      `sha256=${createHmac("sha256", "k3y").update(r!.body).digest("hex")}`,
    );
    assert.deepEqual(JSON.parse(r!.body), JSON.parse(webhookBody(notification)));
    assert.equal(JSON.parse(r!.body).approveCommand, "gitsync approve web -n shop --digest sha256:abc");
  });

  it("retries twice with backoff, then reports the failure without the URL", async () => {
    received.length = 0;
    answers = [500, 503];
    const ok = setup({ url: `${url}/retry`, hmacKey: "k", "ca.crt": ca });
    ok.notifier.notify([{ sinkRef: { name: "sink" } }], notification);
    await ok.notifier.settled();
    assert.equal(received.length, 3, "third attempt delivered");
    assert.deepEqual(ok.failures, []);

    answers = [500, 500, 500];
    const bad = setup({ url: `${url}/T000/secret-path`, "ca.crt": ca }, "slack");
    bad.notifier.notify([{ sinkRef: { name: "sink" } }], notification);
    await bad.notifier.settled();
    assert.deepEqual(bad.failures, ["sink: NotificationSink sink answered 500 after 3 attempts"]);
    assert.deepEqual(JSON.parse(received.at(-1)!.body), { text: slackText(notification) });
  });

  it("does not follow redirects, and without ca.crt an unknown CA is a failure with its code only", async () => {
    answers = [302, 302, 302];
    const redirected = setup({ url: `${url}/moved`, hmacKey: "k", "ca.crt": ca });
    redirected.notifier.notify([{ sinkRef: { name: "sink" } }], notification);
    await redirected.notifier.settled();
    assert.match(redirected.failures[0]!, /answered 302 \(redirects are not followed\) after 3 attempts/);

    const untrusted = setup({ url: `${url}/hook`, hmacKey: "k" });
    untrusted.notifier.notify([{ sinkRef: { name: "sink" } }], notification);
    await untrusted.notifier.settled();
    assert.match(untrusted.failures[0]!, /could not be reached \([A-Z_]+\) after 3 attempts/);
    assert.doesNotMatch(untrusted.failures[0]!, /127\.0\.0\.1|hook/);
  });

  it("sends only the events a sink asks for", async () => {
    received.length = 0;
    const { notifier } = setup({ url: `${url}/f`, hmacKey: "k", "ca.crt": ca });
    notifier.notify([{ sinkRef: { name: "sink" }, events: ["Healthy", "Failed"] }], notification);
    notifier.notify([{ sinkRef: { name: "sink" }, events: ["Healthy", "Failed"] }], {
      ...notification,
      event: "Failed",
    });
    await notifier.settled();
    assert.deepEqual(received.map((r) => JSON.parse(r.body).event), ["Failed"]);
  });

  it("readSink says what is wrong with a sink, never its URL", async () => {
    const client = fakeClient(
      {
        hook: { spec: { type: "webhook", secretRef: { name: "hook" } } },
        orphan: { spec: { type: "slack", secretRef: { name: "gone" } } },
      },
      { hook: { url: "http://hooks.example/T000" } },
    );
    await assert.rejects(readSink(client, "shop", "missing"), /NotificationSink missing does not exist/);
    await assert.rejects(
      readSink(client, "shop", "orphan"),
      /Secret gone of NotificationSink orphan does not exist/,
    );
    await assert.rejects(readSink(client, "shop", "hook"), (err: Error) => {
      assert.match(err.message, /needs key url with an https URL/);
      assert.doesNotMatch(err.message, /hooks\.example|T000/);
      return true;
    });
  });
});
