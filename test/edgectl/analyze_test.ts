/**
 * dist/edgectl analyze: offline, so no cluster; fixtures with known mistakes give the exact findings
 * (golden text), exit codes follow --failure-threshold, and the JSON/YAML documents carry the codes.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { describe, test } from "node:test";
import { parse as parseYaml } from "yaml";
import { ROOT, runBinary } from "../harness/binary.ts";

const BROKEN = "test/edgectl/fixtures/analyze/broken";
const CLEAN = "test/edgectl/fixtures/analyze/clean";

function edgectl(args: string[], options: { input?: string; env?: Record<string, string> } = {}) {
  return runBinary("edgectl", args, {
    cwd: ROOT,
    env: { KUBECONFIG: join(ROOT, "no-such-kubeconfig"), ...options.env },
    ...(options.input === undefined ? {} : { input: options.input }),
  });
}

describe("edgectl analyze", () => {
  test("finds the missing backend, dangling target, VIP, listener clash and duplicate hostnames", async () => {
    const r = await edgectl(["analyze", "-f", BROKEN]);
    assert.equal(r.code, 1);
    assert.equal(
      r.stdout,
      `Error [EP0101] (ProxyRoute shop/web ${BROKEN}/app.yaml:2) rule 2: referenced backend not found: "shop/api"
Error [EP0102] (ProxyPolicy shop/ratelimit ${BROKEN}/more.yaml:4) policy target not found: ProxyRoute "shop/checkout"
Error [EP0104] (ProxyGateway shop/main ${BROKEN}/app.yaml:1) referenced VIP not found: "shop/public"
Error [EP0105] (ProxyGateway shop/main ${BROKEN}/app.yaml:1) listeners "http" and "http-again" both bind port 80 for "shop.example.com"
Warning [EP0103] (ProxyRoute shop/legacy ${BROKEN}/more.yaml:1) hostname "shop.example.com" is also claimed by shop/web
Warning [EP0103] (ProxyRoute shop/web ${BROKEN}/app.yaml:2) hostname "shop.example.com" is also claimed by shop/legacy
Info [EP0106] (ProxyBackend shop/old ${BROKEN}/more.yaml:3) no route sends traffic to this backend
`,
    );
    assert.equal(r.stderr, "error: 4 finding(s) at or above Error\n");
  });

  test("a clean directory passes; the threshold flags decide what prints and what fails", async () => {
    const clean = await edgectl(["analyze", "-f", CLEAN]);
    assert.deepEqual([clean.code, clean.stdout], [0, ""]);
    assert.equal(clean.stderr, `✔ No validation issues found when analyzing ${CLEAN}.\n`);

    const warnings = await edgectl(["analyze", "-f", `${BROKEN}/more.yaml`, "--output-threshold", "Warning"]);
    assert.equal(warnings.code, 1);
    assert.doesNotMatch(warnings.stdout, /EP0106/);
    assert.match(warnings.stdout, /EP0102/);

    // Only the Info finding and an unresolved route-to-backend remain without the broken policy file.
    const onlyInfo = await edgectl(["analyze", "-f", "-"], {
      input: `apiVersion: edgeproxy.io/v1alpha1
kind: ProxyBackend
metadata: { name: idle }
`,
    });
    assert.equal(onlyInfo.code, 0);
    assert.equal(
      onlyInfo.stdout,
      "Info [EP0106] (ProxyBackend default/idle <stdin>:1) no route sends traffic to this backend\n",
    );
    const strict = await edgectl(["analyze", "-f", "-", "--failure-threshold", "Info", "-n", "shop"], {
      input: "apiVersion: edgeproxy.io/v1alpha1\nkind: ProxyBackend\nmetadata: { name: idle }\n",
    });
    assert.equal(strict.code, 1);
    assert.match(strict.stdout, /ProxyBackend shop\/idle/);
  });

  test("-o json and yaml (or EDGECTL_OUTPUT) give the findings with codes and levels", async () => {
    const json = await edgectl(["analyze", "-f", BROKEN, "-o", "json"]);
    assert.equal(json.code, 1);
    const doc = JSON.parse(json.stdout);
    assert.deepEqual(
      doc.findings.map((f: { code: string; level: string }) => `${f.level}:${f.code}`),
      [
        "Error:EP0101",
        "Error:EP0102",
        "Error:EP0104",
        "Error:EP0105",
        "Warning:EP0103",
        "Warning:EP0103",
        "Info:EP0106",
      ],
    );
    assert.equal(doc.findings[0].resource, "ProxyRoute shop/web");
    const yaml = await edgectl(["analyze", "-f", BROKEN], { env: { EDGECTL_OUTPUT: "yaml" } });
    assert.deepEqual(parseYaml(yaml.stdout), doc);
    const cleanJson = await edgectl(["analyze", "-f", CLEAN, "-o", "json"]);
    assert.deepEqual([cleanJson.code, JSON.parse(cleanJson.stdout)], [0, { findings: [] }]);
  });

  test("bad input: a missing path or invalid YAML fails with exit 1; a bad level is a usage error", async () => {
    const missing = await edgectl(["analyze", "-f", "no/such/dir"]);
    assert.deepEqual([missing.code, missing.stderr], [1, 'error: the path "no/such/dir" does not exist\n']);
    const invalid = await edgectl(["analyze", "-f", "-"], { input: "kind: [" });
    assert.equal(invalid.code, 1);
    assert.match(invalid.stderr, /^error: <stdin> \(document 1\).*invalid YAML/);
    const level = await edgectl(["analyze", "-f", CLEAN, "--failure-threshold", "Fatal"]);
    assert.equal(level.code, 2);
    const noFile = await edgectl(["analyze"]);
    assert.equal(noFile.code, 2);
    assert.match((await edgectl(["analyze", "--help"])).stdout, /Examples:[\s\S]*edgectl analyze -f/);
  });
});
