/**
 * dist/edgectl where no cluster is involved: `version` without a kubeconfig (kubectl's behaviour:
 * the client part in the chosen format, the reason on stderr, exit 1) and `conformance` as a
 * command of its own beside `gateway-api conformance`.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { describe, test } from "node:test";
import { parse as parseYaml } from "yaml";
import pkg from "../../package.json" with { type: "json" };
import { ROOT, runBinary } from "../harness/binary.ts";

const VERSION = `v${pkg.version}`;
const NO_KUBECONFIG = { KUBECONFIG: "/nonexistent/kubeconfig" };
const REASON =
  "error: no kubeconfig found: none of the files in KUBECONFIG exist (/nonexistent/kubeconfig); pass --kubeconfig or set KUBECONFIG\n";
const REPORT = join(ROOT, "test/edgectl/fixtures/gateway-api/conformance-report.yaml");

const edgectl = (args: string[]) => runBinary("edgectl", args, { env: NO_KUBECONFIG });

describe("dist/edgectl without a cluster", () => {
  test("version prints the client part in every format, then why the server part is missing", async () => {
    const table = await edgectl(["version"]);
    assert.deepEqual(table, { code: 1, stdout: `Client Version: ${VERSION}\n`, stderr: REASON });
    const json = await edgectl(["version", "-o", "json"]);
    assert.deepEqual([json.code, JSON.parse(json.stdout), json.stderr], [
      1,
      { clientVersion: VERSION },
      REASON,
    ]);
    const yaml = await edgectl(["version", "-o", "yaml"]);
    assert.deepEqual([yaml.code, parseYaml(yaml.stdout), yaml.stderr], [
      1,
      { clientVersion: VERSION },
      REASON,
    ]);
    // --client does not ask, so nothing is missing.
    assert.deepEqual(await edgectl(["version", "--client", "-o", "json"]), {
      code: 0,
      stdout: `{\n  "clientVersion": "${VERSION}"\n}\n`,
      stderr: "",
    });
  });

  test("conformance is a command of its own, the same as gateway-api conformance", async () => {
    const help = await edgectl(["--help"]);
    assert.match(help.stdout, /^ {2}conformance \[options\] +Check the proxy's GatewayClasses/m);
    for (const args of [["-f", REPORT], ["-f", REPORT, "-o", "json"], ["-f", join(ROOT, "absent.yaml")]]) {
      const own = await edgectl(["conformance", ...args]);
      assert.deepEqual(own, await edgectl(["gateway-api", "conformance", ...args]), args.join(" "));
    }
    assert.match((await edgectl(["conformance", "-f", REPORT])).stdout, /^PROFILE +CORE +PASSED/m);
    // Live, it needs the cluster: the kubeconfig's absence is the error.
    assert.deepEqual(await edgectl(["conformance"]), { code: 1, stdout: "", stderr: REASON });
    assert.match(
      (await edgectl(["conformance", "--help"])).stdout,
      /Examples:\n {2}# .*\n {2}edgectl conformance/,
    );
  });
});
