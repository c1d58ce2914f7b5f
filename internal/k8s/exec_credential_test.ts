import assert from "node:assert/strict";
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { ExecPluginError } from "./errors.ts";
import { ExecCredentialProvider, runExecPlugin } from "./exec_credential.ts";
import type { ExecConfig } from "./kubeconfig.ts";

const dir = mkdtempSync(join(tmpdir(), "exec-plugin-test-"));
after(() => rmSync(dir, { recursive: true, force: true }));

/**
 * A plugin that records its arguments, the env var PLUGIN_ENV and KUBERNETES_EXEC_INFO, counts its
 * runs, and prints $PLUGIN_OUTPUT.
 */
const plugin = join(dir, "plugin.sh");
writeFileSync(
  plugin,
  `#!/bin/sh
echo run >> "${dir}/runs"
printf '%s\\n' "$*" > "${dir}/args"
printf '%s' "$PLUGIN_ENV" > "${dir}/env"
printf '%s' "$KUBERNETES_EXEC_INFO" > "${dir}/info"
echo "plugin says hi" >&2
printf '%s' "$PLUGIN_OUTPUT"
exit \${PLUGIN_EXIT:-0}
`,
);
chmodSync(plugin, 0o755);

const V1 = "client.authentication.k8s.io/v1";
const V1BETA1 = "client.authentication.k8s.io/v1beta1";

function config(output: unknown, extra: Partial<ExecConfig> = {}, exit = 0): ExecConfig {
  return {
    apiVersion: V1,
    command: plugin,
    args: ["get-token", "--profile", "work"],
    env: [
      { name: "PLUGIN_ENV", value: "from-kubeconfig" },
      { name: "PLUGIN_OUTPUT", value: typeof output === "string" ? output : JSON.stringify(output) },
      { name: "PLUGIN_EXIT", value: String(exit) },
    ],
    provideClusterInfo: false,
    interactiveMode: "Never",
    ...extra,
  };
}

const cred = (status: unknown, apiVersion = V1) => ({ apiVersion, kind: "ExecCredential", status });
const runs = () => {
  try {
    return readFileSync(join(dir, "runs"), "utf8").trim().split("\n").length;
  } catch {
    return 0;
  }
};
const opts = { stderr: "pipe" as const, stdinIsTerminal: false };

describe("runExecPlugin", () => {
  it("passes args, env and KUBERNETES_EXEC_INFO and returns the token", async () => {
    const status = await runExecPlugin(config(cred({ token: "t0k3n" })), opts);
    assert.deepEqual(status, {
      token: "t0k3n",
      clientCertificateData: undefined,
      clientKeyData: undefined,
      expirationTimestamp: undefined,
    });
    assert.equal(readFileSync(join(dir, "args"), "utf8"), "get-token --profile work\n");
    assert.equal(readFileSync(join(dir, "env"), "utf8"), "from-kubeconfig");
    assert.deepEqual(JSON.parse(readFileSync(join(dir, "info"), "utf8")), {
      kind: "ExecCredential",
      apiVersion: V1,
      spec: { interactive: false },
    });
  });

  it("sends the cluster when provideClusterInfo is set (v1beta1)", async () => {
    await runExecPlugin(
      config(cred({ token: "x" }, V1BETA1), { apiVersion: V1BETA1, provideClusterInfo: true }),
      {
        ...opts,
        cluster: {
          name: "c",
          server: "https://k8s.example.com",
          caData: "PEM",
          insecureSkipTlsVerify: false,
        },
      },
    );
    const info = JSON.parse(readFileSync(join(dir, "info"), "utf8"));
    assert.equal(info.apiVersion, V1BETA1);
    assert.deepEqual(info.spec.cluster, {
      server: "https://k8s.example.com",
      "certificate-authority-data": Buffer.from("PEM").toString("base64"),
    });
  });

  it("returns a client certificate and key", async () => {
    const status = await runExecPlugin(
      config(cred({ clientCertificateData: "CERT", clientKeyData: "KEY" })),
      opts,
    );
    assert.equal(status.clientCertificateData, "CERT");
    assert.equal(status.clientKeyData, "KEY");
  });

  const rejects = (cfg: ExecConfig, message: RegExp, o = opts) =>
    assert.rejects(runExecPlugin(cfg, o), (err: unknown) => {
      assert.ok(err instanceof ExecPluginError);
      assert.match(err.message, message);
      return true;
    });

  it("explains bad plugin output", async () => {
    await rejects(config("not json"), /did not print an ExecCredential as JSON/);
    await rejects(
      config(cred({ token: "x" }, V1BETA1)),
      /configured to use API version .*v1, plugin returned version .*v1beta1/,
    );
    await rejects(config(cred(undefined)), /didn't return a status field/);
    await rejects(config(cred({})), /didn't return a token or cert\/key pair/);
    await rejects(config(cred({ clientCertificateData: "CERT" })), /only certificate or key/);
    await rejects(config(cred({ token: "x", expirationTimestamp: "soon" })), /invalid expirationTimestamp/);
  });

  it("explains a failing or missing plugin, with its stderr and install hint", async () => {
    await rejects(config(cred({ token: "x" }), {}, 3), /exited with code 3: plugin says hi/);
    await rejects(
      config("", { command: join(dir, "no-such-plugin"), installHint: "brew install sso" }),
      /executable .*no-such-plugin not found\nbrew install sso/,
    );
    await rejects(config("", { interactiveMode: "Always" }), /standard input is not a terminal/);
  });
});

describe("ExecCredentialProvider", () => {
  it("reuses a credential until its expirationTimestamp, and runs again after invalidate()", async () => {
    let now = Date.parse("2026-01-01T00:00:00Z");
    const provider = new ExecCredentialProvider(
      config(cred({ token: "a", expirationTimestamp: "2026-01-01T00:10:00Z" })),
      { ...opts, now: () => now },
    );
    const before = runs();
    const [a, b] = await Promise.all([provider.get(), provider.get()]);
    assert.equal(a.token, "a");
    assert.equal(b, a);
    assert.equal(runs() - before, 1, "concurrent callers share one run");
    now += 9 * 60_000;
    await provider.get();
    assert.equal(runs() - before, 1, "still valid");
    now += 60_000;
    await provider.get();
    assert.equal(runs() - before, 2, "expired: ran again");
    provider.invalidate();
    await provider.get();
    assert.equal(runs() - before, 3, "invalidated: ran again");
  });

  it("keeps a credential without expiry for the life of the provider; failures are not cached", async () => {
    const good = new ExecCredentialProvider(config(cred({ token: "forever" })), opts);
    const before = runs();
    await good.get();
    await good.get();
    assert.equal(runs() - before, 1);
    const bad = new ExecCredentialProvider(config(cred({ token: "x" }), {}, 1), opts);
    await assert.rejects(bad.get(), ExecPluginError);
    await assert.rejects(bad.get(), ExecPluginError);
    assert.equal(runs() - before, 3);
  });
});
