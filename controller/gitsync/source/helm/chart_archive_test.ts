import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { gzipSync } from "node:zlib";
import { cachedBinary } from "../../../../scripts/testenv/go_build.ts";
import { HELM } from "../../../../scripts/testenv/servers.ts";
import { unpackChart } from "./chart_archive.ts";

const FIXTURES = fileURLToPath(new URL("../../../../test/fixtures/helm/", import.meta.url));

/** A tar entry header (ustar), enough to craft hostile archives. */
function tarEntry(name: string, data: Uint8Array, type = "0", linkName = ""): Uint8Array {
  const header = new Uint8Array(512);
  const put = (text: string, at: number) => header.set(new TextEncoder().encode(text), at);
  put(name, 0);
  put("0000644\0", 100);
  put("0000000\0", 108);
  put("0000000\0", 116);
  put(data.length.toString(8).padStart(11, "0") + "\0", 124);
  put("00000000000\0", 136);
  put("        ", 148);
  put(type, 156);
  put(linkName, 157);
  put("ustar\0" + "00", 257);
  const sum = header.reduce((a, b) => a + b, 0);
  put(sum.toString(8).padStart(6, "0") + "\0 ", 148);
  const padded = new Uint8Array(Math.ceil(data.length / 512) * 512);
  padded.set(data);
  return Buffer.concat([header, padded]);
}

function tgz(entries: Uint8Array[]): Uint8Array {
  return gzipSync(Buffer.concat([...entries, new Uint8Array(1024)]));
}

const chartYaml = new TextEncoder().encode("apiVersion: v2\nname: c\nversion: 1.0.0\n");

test("a chart packaged by the pinned `helm package` unpacks to its files, .helmignore applied by helm", async () => {
  const helm = cachedBinary(HELM);
  assert.ok(helm, "the pinned helm binary is missing: run `deno task testenv:build helm`");
  const dir = await mkdtemp(join(tmpdir(), "chart-archive-"));
  try {
    await promisify(execFile)(helm, ["package", join(FIXTURES, "umbrella"), "-d", dir], {
      env: { HOME: dir, PATH: "/usr/bin:/bin" },
    });
    const files = unpackChart(await readFile(join(dir, "umbrella-0.3.0.tgz")));
    assert.deepEqual([...files.keys()].sort(), [
      "Chart.lock",
      "Chart.yaml",
      "charts/backend/Chart.yaml",
      "charts/backend/templates/deployment.yaml",
      "charts/backend/values.yaml",
      "charts/cache/Chart.yaml",
      "charts/cache/templates/statefulset.yaml",
      "charts/common/Chart.yaml",
      "charts/common/templates/_configmap.tpl",
      "templates/gateway.yaml",
      "values.yaml",
    ]);
    assert.deepEqual(
      files.get("values.yaml"),
      new Uint8Array(await readFile(join(FIXTURES, "umbrella/values.yaml"))),
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test("paths that are absolute or leave the chart are refused", () => {
  for (const name of ["c/../../etc/passwd", "/etc/passwd", "c/templates/../../../x"]) {
    assert.throws(
      () => unpackChart(tgz([tarEntry("c/Chart.yaml", chartYaml), tarEntry(name, new Uint8Array(1))])),
      /absolute path|leaving the chart/,
      name,
    );
  }
});

test("links and special files are refused", () => {
  assert.throws(
    () =>
      unpackChart(tgz([tarEntry("c/Chart.yaml", chartYaml), tarEntry("c/x", new Uint8Array(), "2", "/etc")])),
    /holds a symlink: "c\/x"/,
  );
  assert.throws(
    () =>
      unpackChart(
        tgz([tarEntry("c/Chart.yaml", chartYaml), tarEntry("c/y", new Uint8Array(), "1", "c/Chart.yaml")]),
      ),
    /hard link/,
  );
});

test("the decompressed size and the file count are capped (a gzip bomb stops at the cap)", () => {
  const big = tgz([tarEntry("c/Chart.yaml", chartYaml), tarEntry("c/zeros", new Uint8Array(8 << 20))]);
  assert.ok(big.length < 64 << 10, "compresses well");
  assert.throws(() => unpackChart(big, { maxBytes: 1 << 20 }), /larger than 1048576 bytes once decompressed/);
  const many = tgz([
    tarEntry("c/Chart.yaml", chartYaml),
    ...Array.from({ length: 20 }, (_, i) => tarEntry(`c/f${i}`, new Uint8Array(1))),
  ]);
  assert.throws(() => unpackChart(many, { maxFiles: 10 }), /more than 10 files/);
  assert.equal(unpackChart(many).size, 21);
});

test("not gzip, no Chart.yaml, two chart folders: clear errors", () => {
  assert.throws(() => unpackChart(new TextEncoder().encode("<html>")), /not gzip/);
  assert.throws(() => unpackChart(tgz([tarEntry("c/values.yaml", new Uint8Array())])), /no Chart.yaml/);
  assert.throws(
    () => unpackChart(tgz([tarEntry("c/Chart.yaml", chartYaml), tarEntry("d/Chart.yaml", chartYaml)])),
    /more than one chart folder/,
  );
});
