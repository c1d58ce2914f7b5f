/**
 * Black-box: `vault import` and `vault export` (issue 38) with `dist/vault`, on the embedded database:
 * a folder and a zip (with files the vault refuses, each listed with its reason) through a running
 * server with an API key, the export imported again byte for byte, --dry-run, a second run that
 * changes nothing, a bad or read-only key, a stopped server, and offline use refused while the
 * server runs and working once it stopped.
 */
import assert from "node:assert/strict";
import { mkdir, mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, before, describe, it } from "node:test";
import { runBinary, type RunningBinary, startBinary } from "../harness/binary.ts";
import { VaultClient, vaultEnv } from "../harness/vault.ts";
import { TextReader, Uint8ArrayWriter, ZipWriter } from "@zip.js/zip.js/index-native.js";

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 73, 72, 68, 82]);

/** An Obsidian vault as people have them, with a few things the vault cannot take. */
const VAULT: Record<string, string | Buffer> = {
  "Home.md": "# Home\nStart at [[Projects/Plan]], see [[Ideas]] and ![[diagram.png]].\n",
  "Projects/Plan.md": "---\ntags: [plan]\n---\n# Plan\nBack to [home](../Home.md). Later: [[Someday]].\n",
  "Ideas.md": "# Ideas\n- [[Plan#Goals|the goals]]\n",
  "assets/diagram.png": PNG,
  "Boards/Roadmap.canvas":
    '{\n\t"nodes":[\n\t\t{"id":"a","type":"file","file":"Home.md","x":0,"y":0,"width":400,"height":400}\n\t],\n\t"edges":[]\n}',
  "Notes with spaces/Meeting notes 2024.md": "Met [[Home]].\n",
  ".obsidian/app.json": '{"newLinkFormat":"shortest"}\n',
  ".obsidian/workspace.json": '{"main":{}}\n',
  // Refused, each with a reason:
  "huge.md": "x".repeat(1024 * 1024 + 1),
  "fake.png": "not really a png",
  ".git/HEAD": "ref: refs/heads/main\n",
  "Bad:name.md": "colon",
};

async function writeTree(root: string, files: Record<string, string | Buffer>): Promise<void> {
  for (const [p, content] of Object.entries(files)) {
    await mkdir(dirname(join(root, p)), { recursive: true });
    await writeFile(join(root, p), content);
  }
}

/** Every file below `dir` (hidden ones too) with its bytes. */
async function readTree(dir: string): Promise<Map<string, Buffer>> {
  const out = new Map<string, Buffer>();
  for (const e of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!e.isFile()) continue;
    const abs = join(e.parentPath, e.name);
    out.set(abs.slice(dir.length + 1), await readFile(abs));
  }
  return out;
}

describe("vault import and export (dist/vault, embedded database)", () => {
  let home: string;
  let server: RunningBinary;
  let token: string;
  let readToken: string;
  let userId: string;
  let client: VaultClient;
  const env = () => ({ ...vaultEnv(home), VAULT_URL: server.url, VAULT_TOKEN: token });
  const vault = (args: string[], extra: Record<string, string> = {}) =>
    runBinary("vault", args, { cwd: home, env: { ...env(), ...extra }, timeoutMs: 60_000 });
  const sources = async (path: string) =>
    (await client.get(`/api/backlinks?path=${encodeURIComponent(path)}`)).body.backlinks.map((
      b: { path: string },
    ) => b.path);
  const start = async () => {
    server = await startBinary("vault", ["serve"], { cwd: home, env: vaultEnv(home), timeoutMs: 60_000 });
  };

  before(async () => {
    home = await mkdtemp(join(tmpdir(), "vault-import-"));
    await start();
    client = new VaultClient(server.url);
    const up = await client.post("/api/auth/sign-up/email", {
      email: "ann@example.test",
      password: "ann-Pa55word-123",
      name: "Ann",
    });
    assert.equal(up.status, 201, JSON.stringify(up.body));
    userId = up.body.user.id;
    token = (await client.write("POST", "/api/api-keys", { name: "import", scope: "read-write" })).body.key;
    readToken = (await client.write("POST", "/api/api-keys", { name: "reader", scope: "read" })).body.key;
    await writeTree(join(home, "MyVault"), VAULT);
    await symlink("/etc/passwd", join(home, "MyVault", "passwords.md"));
  });

  after(async () => {
    await server?.stop();
    await rm(home, { recursive: true, force: true });
  });

  it("imports a folder through the server: files at their paths, refusals listed, links resolved", async () => {
    const dry = await vault(["import", "MyVault", "--dry-run", "-o", "json"]);
    assert.equal(dry.code, 0, dry.stderr);
    assert.equal(JSON.parse(dry.stdout).created, 8);
    assert.equal((await client.get("/api/notes/tree")).body.entries.length, 0, "--dry-run wrote nothing");

    const run = await vault(["import", "MyVault"]);
    assert.equal(run.code, 0, run.stderr);
    assert.match(
      run.stdout,
      /imported into .*: 8 created, 0 updated, 0 unchanged \(2 of them Obsidian settings/,
    );
    for (
      const [path, reason] of [
        ["huge.md", /too large/],
        ["fake.png", /content is not image\/png/],
        [".git/", /hidden folder, not imported \(1 file\)/],
        ["Bad:name.md", /invalid path/],
        ["passwords.md", /symbolic link/],
      ] as const
    ) {
      const line = run.stdout.split("\n").find((l) => l.startsWith(path + " "));
      assert.ok(line, `${path} listed as refused:\n${run.stdout}`);
      assert.match(line, reason);
    }
    assert.match(run.stderr, /importing: 100%/, "progress lines when stderr is not a terminal");

    const notes = join(home, "notes", "users", userId);
    for (const p of Object.keys(VAULT).slice(0, 8)) {
      assert.deepEqual(await readFile(join(notes, p)), Buffer.from(VAULT[p]!), p);
    }
    const tree = (await client.get("/api/notes/tree")).body.entries.map((e: { path: string }) => e.path);
    assert.ok(!tree.some((p: string) => p.startsWith(".obsidian")), "settings are kept aside, not listed");
    assert.deepEqual(await sources("Projects/Plan.md"), ["Home.md", "Ideas.md"]);
    assert.deepEqual(await sources("Home.md"), [
      "Notes with spaces/Meeting notes 2024.md",
      "Projects/Plan.md",
    ]);
    assert.deepEqual(await sources("assets/diagram.png"), ["Home.md"]);
    const unresolved = (await client.get("/api/links/unresolved")).body.links.map((l: { target: string }) =>
      l.target
    );
    assert.deepEqual(unresolved, ["Someday"]);

    // A second run changes nothing: no file is written again, no version moves.
    const before = (await stat(join(notes, "Home.md"))).mtimeMs;
    const again = await vault(["import", "MyVault", "-o", "json"]);
    const report = JSON.parse(again.stdout);
    assert.deepEqual([report.created, report.updated, report.unchanged], [0, 0, 8]);
    assert.equal((await stat(join(notes, "Home.md"))).mtimeMs, before);
  });

  it("exports a zip that imports back byte for byte (another user), refusals and all from a zip", async () => {
    const out = await vault(["export", "ann.zip"]);
    assert.equal(out.code, 0, out.stderr);
    assert.match(out.stdout, /exported 8 files \(\d+ bytes\) to ann\.zip/);

    // Bob imports Ann's export through the API, as a zip.
    const bob = new VaultClient(server.url);
    const invite = (await client.write("POST", "/api/admin/invites", {})).body.code;
    const up = await bob.post("/api/auth/sign-up/email", {
      email: "bob@example.test",
      password: "bob-Pa55word-123",
      name: "Bob",
      inviteCode: invite,
    });
    assert.equal(up.status, 201, JSON.stringify(up.body));
    const bobToken =
      (await bob.write("POST", "/api/api-keys", { name: "import", scope: "read-write" })).body.key;
    const imported = await vault(["import", "ann.zip", "-o", "json"], { VAULT_TOKEN: bobToken });
    assert.equal(imported.code, 0, imported.stderr);
    assert.deepEqual(JSON.parse(imported.stdout).refused, []);
    const ann = await readTree(join(home, "notes", "users", userId));
    const bobs = await readTree(join(home, "notes", "users", up.body.user.id));
    assert.deepEqual([...bobs.keys()].sort(), [...ann.keys()].sort());
    for (const [p, bytes] of ann) assert.deepEqual(bobs.get(p), bytes, p);

    // A zip with zip-slip entries and a symlink entry: refused, the rest taken, nothing written outside.
    const writer = new ZipWriter(new Uint8ArrayWriter());
    await writer.add("ok.md", new TextReader("fine"));
    await writer.add("../../evil.md", new TextReader("escaped"));
    await writer.add("/abs.md", new TextReader("absolute"));
    await writer.add("link.md", new TextReader("/etc/passwd"), { unixMode: 0o120777 });
    await writeFile(join(home, "slip.zip"), await writer.close());
    const slip = await vault(["import", "slip.zip", "-o", "json"], { VAULT_TOKEN: bobToken });
    assert.equal(slip.code, 0, slip.stderr);
    const report = JSON.parse(slip.stdout);
    assert.equal(report.created, 1);
    assert.deepEqual(report.refused.map((r: { path: string }) => r.path).sort(), [
      "../../evil.md",
      "/abs.md",
      "link.md",
    ]);
    await assert.rejects(stat(join(home, "notes", "evil.md")));
    await assert.rejects(stat(join(home, "evil.md")));
    // Not a zip at all.
    await writeFile(join(home, "notzip.zip"), "hello");
    const notZip = await vault(["import", "notzip.zip"]);
    assert.equal(notZip.code, 1);
    assert.match(notZip.stderr, /not a zip archive/);
  });

  it("refuses a bad key, a read-only key and a server that is not there, clearly", async () => {
    const bad = await vault(["import", "MyVault"], { VAULT_TOKEN: "vault_nope" });
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /refused the API key \(401\): check VAULT_TOKEN/);
    const ro = await vault(["import", "MyVault"], { VAULT_TOKEN: readToken });
    assert.equal(ro.code, 1);
    assert.match(ro.stderr, /\(403\).*read-write key/);
    assert.ok(!ro.stderr.includes(readToken), "the key is never printed");
    const nobody = await vault(["import", "MyVault"], { VAULT_URL: "http://127.0.0.1:9" });
    assert.equal(nobody.code, 1);
    assert.match(nobody.stderr, /cannot reach the vault at http:\/\/127\.0\.0\.1:9/);
    const usage = await vault(["import", "MyVault", "--user", "ann@example.test"]);
    assert.equal(usage.code, 2);
    assert.match(usage.stderr, /--user is for offline use/);
  });

  it("offline: refused while the server runs, done once it stopped", async () => {
    const offline = { VAULT_URL: "", VAULT_TOKEN: "" };
    await writeTree(join(home, "More"), { "Offline.md": "[[Home]] from offline" });
    const busy = await vault(["import", "More", "--user", "ann@example.test"], offline);
    assert.equal(busy.code, 1);
    assert.match(busy.stderr, /a vault server is using .*process \d+.*stop it first/);
    await server.stop();
    const run = await vault(["import", "More", "--user", "ann@example.test", "-o", "json"], offline);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(JSON.parse(run.stdout).created, 1);
    const none = await vault(["import", "More", "--user", "nobody@example.test"], offline);
    assert.equal(none.code, 1);
    assert.match(none.stderr, /no user with email nobody@example\.test/);
    const exported = await vault(["export", "offline.zip", "--user", "ann@example.test"], offline);
    assert.equal(exported.code, 0, exported.stderr);
    assert.match(exported.stdout, /exported 9 files/);
    await start();
    client = new VaultClient(server.url);
    await client.post("/api/auth/sign-in/email", { email: "ann@example.test", password: "ann-Pa55word-123" });
    assert.deepEqual(await sources("Home.md"), [
      "Notes with spaces/Meeting notes 2024.md",
      "Offline.md",
      "Projects/Plan.md",
    ]);
  });
});
