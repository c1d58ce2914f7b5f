/**
 * dist/edgectl where no cluster is involved: `version` without a kubeconfig (kubectl's behaviour:
 * the client part in the chosen format, the reason on stderr, exit 1).
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { parse as parseYaml } from "yaml";
import pkg from "../../package.json" with { type: "json" };
import { runBinary } from "../harness/binary.ts";

const VERSION = `v${pkg.version}`;
const NO_KUBECONFIG = { KUBECONFIG: "/nonexistent/kubeconfig" };
const REASON =
  "error: no kubeconfig found: none of the files in KUBECONFIG exist (/nonexistent/kubeconfig); pass --kubeconfig or set KUBECONFIG\n";

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
});
