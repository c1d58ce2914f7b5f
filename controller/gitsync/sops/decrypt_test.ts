/**
 * The SOPS decryption against files encrypted by the real sops binary (built from its Go module by the
 * test command, scripts/testenv/servers.ts), for each format and both MAC modes, and against tampered
 * copies of them.
 */
import assert from "node:assert/strict";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { generateIdentity, identityToRecipient } from "age-encryption";
import { parse as parseYaml } from "yaml";
import { runSops, sopsBinary } from "../../../test/harness/sops.ts";
import { skipBecause } from "../../../test/harness/skip.ts";
import { decryptSops, sopsFormat } from "./decrypt.ts";

const SECRET_YAML = `apiVersion: v1
kind: Secret
metadata:
  name: db
  namespace: shop
type: Opaque
stringData:
  "2": second
  "1": first
  password: hunter2
  url: postgres://app:hunter2@db/shop
  multi: |
    line one
    line two
  empty: ""
config:
  replicas: 3
  ratio: 0.25
  huge: 9007199254740993
  enabled: true
  hosts:
    - a.example.com
    - b.example.com
  nested:
    - name: x
      port: 8080
  count_unencrypted: 10
  ratio_unencrypted: 1.0
  big_unencrypted: 1e+21
  flag_unencrypted: false
`;

describe("SOPS files encrypted by sops, decrypted in memory", {
  skip: skipBecause(
    !sopsBinary && "sops is not built: `deno task testenv:build sops` (the test command builds it)",
  ),
}, () => {
  let dir: string;
  let identity: string;
  let other: string;
  let recipient: string;

  const sops = (args: string[], input: string, name: string, cwd = dir) =>
    runSops(args, input, { cwd, name, identity });
  const encrypt = (type: string, input: string, name: string) =>
    sops(["encrypt", "--age", recipient, "--input-type", type, "--output-type", type], input, name);
  const decrypt = (type: string, input: string, name: string) =>
    sops(["decrypt", "--input-type", type, "--output-type", type], input, name);
  const ours = async (name: string, text: string, ids = [identity]) =>
    new TextDecoder().decode(await decryptSops(name, new TextEncoder().encode(text), ids));

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "sops-"));
    identity = await generateIdentity();
    other = await generateIdentity();
    recipient = await identityToRecipient(identity);
  });
  after(() => rm(dir, { recursive: true, force: true }));

  test("YAML: every value type, integer-like keys in file order, lists, clear _unencrypted values", async () => {
    const encrypted = await encrypt("yaml", SECRET_YAML, "secret.yaml");
    assert.equal(sopsFormat("secret.yaml", new TextEncoder().encode(encrypted)), "yaml");
    assert.doesNotMatch(encrypted, /hunter2|second/);
    const plain = await ours("secret.yaml", encrypted);
    const theirs = await decrypt("yaml", encrypted, "again.yaml");
    assert.deepEqual(parseYaml(plain, { intAsBigInt: true }), parseYaml(theirs, { intAsBigInt: true }));
    const values = parseYaml(plain, { intAsBigInt: true });
    assert.equal(values.stringData.multi, "line one\nline two\n");
    assert.equal(values.config.huge, 9007199254740993n, "an int beyond 2^53 keeps its digits");
    assert.doesNotMatch(plain, /^sops:/m);
  });

  test("YAML with mac_only_encrypted and encrypted_regex (only Secret data encrypted)", async () => {
    // mac_only_encrypted is set by a creation rule of .sops.yaml, found from the working directory.
    const configured = join(dir, "configured");
    await mkdir(configured);
    await writeFile(
      join(configured, ".sops.yaml"),
      `creation_rules:\n  - age: ${recipient}\n    encrypted_regex: ^(stringData|data)$\n    mac_only_encrypted: true\n`,
    );
    const encrypted = await sops(
      ["encrypt", "--input-type", "yaml", "--output-type", "yaml"],
      SECRET_YAML,
      "p.yaml",
      configured,
    );
    assert.match(encrypted, /mac_only_encrypted: true/);
    assert.match(encrypted, /^ {8}- a\.example\.com$/m, "outside stringData stays clear");
    assert.deepEqual(parseYaml(await ours("partial.yaml", encrypted)), parseYaml(SECRET_YAML));
  });

  test("JSON, dotenv and binary files", async () => {
    const json = JSON.stringify({ b: "x", a: [1, 2.5, true], "1": { token: "t0k3n" } }, null, 2);
    const encJson = await encrypt("json", json, "s.json");
    assert.equal(sopsFormat("s.json", new TextEncoder().encode(encJson)), "json");
    assert.deepEqual(JSON.parse(await ours("s.json", encJson)), JSON.parse(json));

    const env = "DB_HOST=db\nDB_PASSWORD=hunter2\nEMPTY=\n";
    const encEnv = await encrypt("dotenv", env, "app.env");
    assert.equal(sopsFormat("app.env", new TextEncoder().encode(encEnv)), "dotenv");
    assert.equal((await ours("app.env", encEnv)).trim(), env.trim());

    const cert = "-----BEGIN CERTIFICATE-----\nMIIBfake\n-----END CERTIFICATE-----\n";
    const encBin = await encrypt("binary", cert, "tls.crt");
    assert.equal(sopsFormat("tls.crt", new TextEncoder().encode(encBin)), "binary");
    assert.equal(await ours("tls.crt", encBin), cert);
  });

  test("a file that is not encrypted is not taken for one", () => {
    const plain = (name: string, text: string) => sopsFormat(name, new TextEncoder().encode(text));
    assert.equal(plain("cm.yaml", "apiVersion: v1\nkind: ConfigMap\n"), undefined);
    assert.equal(plain("x.json", '{"a": 1}'), undefined);
    assert.equal(plain("doc.md", "values look like ENC[AES256_GCM,data:...] in sops files"), undefined);
  });

  describe("tampered files fail with DecryptionFailure", () => {
    let encrypted: string;
    before(async () => {
      encrypted = await encrypt("yaml", SECRET_YAML, "t.yaml");
    });
    const refused = async (text: string, message: RegExp, ids = [identity]) => {
      await assert.rejects(ours("t.yaml", text, ids), (err: Error) => {
        assert.equal(err.name, "DecryptionFailure");
        assert.match(err.message, message);
        assert.doesNotMatch(err.message, /hunter2/);
        return true;
      });
    };

    test("a value removed", async () => {
      const removed = encrypted.replace(/^ {8}- ENC\[[^\n]*\n/m, "");
      assert.notEqual(removed, encrypted);
      await refused(removed, /MAC mismatch/);
    });

    test("a value spliced from another key", async () => {
      const password = /^ {4}password: (ENC\[[^\n]*\])$/m.exec(encrypted)![1]!;
      await refused(
        encrypted.replace(/^( {4}url: )ENC\[[^\n]*\]$/m, `$1${password}`),
        /the value at stringData\.url does not decrypt/,
      );
    });

    test("the MAC changed", async () => {
      const other = /^ {4}password: (ENC\[[^\n]*\])$/m.exec(encrypted)![1]!;
      await refused(
        encrypted.replace(/^( {4}mac: )ENC\[[^\n]*\]$/m, `$1${other}`),
        /the MAC does not decrypt/,
      );
      await refused(encrypted.replace(/^ {4}mac: [^\n]*$/m, ""), /no MAC/);
    });

    test("a clear value slipped in where the file's rules want it encrypted", async () => {
      await refused(
        encrypted.replace(/^( {4}password: )ENC\[[^\n]*\]$/m, "$1letmein"),
        /stringData\.password is not encrypted/,
      );
    });

    test("a key that is not a recipient", async () => {
      await refused(encrypted, /none of the age keys decrypts it \(recipients: age1/, [other]);
      await refused(encrypted, /no age identities/, []);
    });
  });
});
