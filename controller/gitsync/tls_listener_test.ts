import assert from "node:assert/strict";
import { connect as http2Connect } from "node:http2";
import { request } from "node:https";
import { connect as tlsConnect } from "node:tls";
import { after, describe, it } from "node:test";
import { Hono } from "hono";
import { type AppEnv, serve } from "../../internal/http/mod.ts";
import { silentLogger } from "../../internal/log/mod.ts";
import { issueCa, issueServing } from "./approval/x509.ts";
import { bindTlsListener, type TlsListener } from "./tls_listener.ts";

const inHours = (h: number) => new Date(Date.now() + h * 3600_000);
const ca = await issueCa({ notAfter: inHours(2) });
const first = await issueServing(ca, {
  ipAddresses: ["127.0.0.1"],
  commonName: "first",
  notAfter: inHours(1),
});
const second = await issueServing(ca, {
  ipAddresses: ["127.0.0.1"],
  commonName: "second",
  notAfter: inHours(1),
});

/** The ALPN protocol and certificate CN a client offering h2 and http/1.1 gets. */
function handshake(port: number): Promise<{ alpn: string | false; cn: string }> {
  return new Promise((resolve, reject) => {
    const s = tlsConnect({ host: "127.0.0.1", port, ca: ca.cert, ALPNProtocols: ["h2", "http/1.1"] }, () => {
      resolve({ alpn: s.alpnProtocol ?? false, cn: String(s.getPeerCertificate().subject.CN) });
      s.destroy();
    });
    s.on("error", reject);
  });
}

function post(port: number, body: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: "127.0.0.1", port, method: "POST", path: "/echo", ca: ca.cert, agent: false },
      (res) => {
        let text = "";
        res.on("data", (d) => (text += d));
        res.on("end", () => resolve(text));
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

const app = new Hono<AppEnv>();
app.post("/echo", async (c) => c.text(`${c.req.method} ${await c.req.text()}`));

/** The listener serving `app` through internal/http, as the manager's HTTPS servers run. */
async function start(o: { http2?: boolean; certificate?: typeof first }): Promise<TlsListener> {
  const tls = await bindTlsListener({ host: "127.0.0.1", port: 0, ...o });
  serve(app, {
    hostname: "127.0.0.1",
    port: tls.port,
    log: silentLogger,
    handleSignals: false,
    listen: tls.listen,
  });
  return tls;
}

describe("bindTlsListener", () => {
  const servers: TlsListener[] = [];
  after(() => Promise.all(servers.map((s) => s.close())));
  const started = async (o: { http2?: boolean; certificate?: typeof first }) => {
    const s = await start(o);
    servers.push(s);
    return s;
  };

  it("serves HTTP/1.1 only by default: a client offering h2 gets http/1.1", async () => {
    const s = await started({ certificate: first });
    assert.equal((await handshake(s.port)).alpn, "http/1.1");
    assert.equal(await post(s.port, "hello"), "POST hello");
    const client = http2Connect(`https://127.0.0.1:${s.port}`, { ca: ca.cert });
    await assert.rejects(
      new Promise((resolve, reject) => {
        client.on("error", reject);
        const r = client.request({ ":path": "/" });
        r.on("error", reject);
        r.on("response", resolve);
        r.end();
      }),
    );
    client.destroy();
  });

  it("with http2, an HTTP/2 client negotiates h2; HTTP/1.1 clients still work", async () => {
    const s = await started({ certificate: first, http2: true });
    assert.equal((await handshake(s.port)).alpn, "h2");
    const client = http2Connect(`https://127.0.0.1:${s.port}`, { ca: ca.cert });
    const text = await new Promise<string>((resolve, reject) => {
      const r = client.request({ ":method": "POST", ":path": "/echo" });
      let out = "";
      r.on("data", (d) => (out += d));
      r.on("end", () => resolve(out));
      r.on("error", reject);
      r.end("over h2");
    });
    client.close();
    assert.equal(text, "POST over h2");
    assert.equal(await post(s.port, "h1"), "POST h1");
  });

  for (const http2 of [false, true]) {
    it(`swaps its certificate while serving (http2 ${http2})`, async () => {
      const s = await started({ certificate: first, http2 });
      assert.equal((await handshake(s.port)).cn, "first");
      s.setCertificate(second);
      assert.equal((await handshake(s.port)).cn, "second");
    });

    it(`without a certificate it refuses handshakes until it gets one (http2 ${http2})`, async () => {
      const s = await started({ http2 });
      await assert.rejects(handshake(s.port));
      s.setCertificate(first);
      assert.equal((await handshake(s.port)).cn, "first");
    });
  }

  it("close() ends keep-alive connections", async () => {
    const s = await start({ certificate: first });
    const socket = tlsConnect({ host: "127.0.0.1", port: s.port, ca: ca.cert });
    await new Promise((r) => socket.once("secureConnect", r));
    const closed = new Promise((r) => socket.once("close", r));
    await s.close();
    await closed;
  });
});
