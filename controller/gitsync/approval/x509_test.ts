import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { createPrivateKey, X509Certificate } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { before, describe, it } from "node:test";
import { promisify } from "node:util";
import { issueCa, issueServing, type KeyPair } from "./x509.ts";

const inHours = (h: number) => new Date(Date.now() + h * 3600_000);

describe("x509", () => {
  let ca: KeyPair;
  let leaf: KeyPair;
  before(async () => {
    ca = await issueCa({ commonName: "test-ca", notAfter: inHours(48) });
    leaf = await issueServing(ca, {
      dnsNames: ["gitsync-webhook.gitsync-system.svc", "localhost"],
      ipAddresses: ["127.0.0.1", "::1"],
      notAfter: inHours(1),
    });
  });

  it("issues a CA that signs a serving certificate for the names and addresses asked", () => {
    const c = new X509Certificate(ca.cert);
    const l = new X509Certificate(leaf.cert);
    assert.equal(c.ca, true);
    assert.equal(l.ca, false);
    assert.ok(l.verify(c.publicKey));
    assert.ok(l.checkIssued(c));
    assert.ok(l.checkPrivateKey(createPrivateKey(leaf.key)));
    assert.equal(l.checkHost("gitsync-webhook.gitsync-system.svc"), "gitsync-webhook.gitsync-system.svc");
    assert.equal(l.checkHost("gitsync-webhook.other.svc"), undefined);
    assert.equal(l.checkIP("127.0.0.1"), "127.0.0.1");
    assert.match(l.subjectAltName!, /IP Address:0:0:0:0:0:0:0:1|IP Address:::1/);
    assert.equal(l.issuer, "CN=test-ca");
    assert.ok(Math.abs(Date.parse(l.validTo) - inHours(1).getTime()) < 2_000);
    // Backdated a little, for verifiers whose clock is behind.
    assert.ok(Date.parse(l.validFrom) < Date.now() - 60_000);
  });

  it("openssl accepts the chain for TLS server use", async () => {
    const dir = await mkdtemp(join(tmpdir(), "x509-"));
    try {
      await writeFile(join(dir, "ca.crt"), ca.cert);
      await writeFile(join(dir, "tls.crt"), leaf.cert);
      const { stdout } = await promisify(execFile)("openssl", [
        "verify",
        "-CAfile",
        join(dir, "ca.crt"),
        "-purpose",
        "sslserver",
        join(dir, "tls.crt"),
      ]);
      assert.match(stdout, /tls\.crt: OK/);
      // Another CA's certificate is not accepted.
      await writeFile(join(dir, "other.crt"), (await issueCa({ notAfter: inHours(1) })).cert);
      await assert.rejects(
        promisify(execFile)("openssl", ["verify", "-CAfile", join(dir, "other.crt"), join(dir, "tls.crt")]),
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("a serving certificate names at least one DNS name or address", async () => {
    await assert.rejects(issueServing(ca, { notAfter: inHours(1) }), /at least one DNS name or IP address/);
    await assert.rejects(issueServing(ca, { ipAddresses: ["not-an-ip"], notAfter: inHours(1) }), /not an IP/);
  });

  it("dates from 2050 on are GeneralizedTime", async () => {
    const far = await issueCa({ notAfter: new Date("2061-03-04T05:06:07Z") });
    assert.equal(
      new Date(Date.parse(new X509Certificate(far.cert).validTo)).toISOString(),
      "2061-03-04T05:06:07.000Z",
    );
  });
});
