import assert from "node:assert/strict";
import { after, test } from "node:test";
import { Helm } from "./helm.ts";
import { helmValues, valuesFilePath } from "./helm_source.ts";
import { Kustomize } from "./kustomize.ts";
import { renderSource } from "./render.ts";

const enc = (s: string) => new TextEncoder().encode(s);

/** A chart at deploy/chart whose ConfigMap shows where each value came from. */
const tree = new Map<string, Uint8Array>([
  ["deploy/chart/Chart.yaml", enc("apiVersion: v2\nname: show\nversion: 1.0.0\n")],
  [
    "deploy/chart/values.yaml",
    enc("a: chart\nb: chart\nc: chart\nd: chart\nnested:\n  keep: chart\n  over: chart\n"),
  ],
  [
    "deploy/chart/templates/cm.yaml",
    enc(
      "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: {{ .Release.Name }}\n  namespace: {{ .Release.Namespace }}\n" +
        "data:\n  a: {{ .Values.a }}\n  b: {{ .Values.b }}\n  c: {{ .Values.c }}\n  d: {{ .Values.d }}\n" +
        "  keep: {{ .Values.nested.keep }}\n  over: {{ .Values.nested.over }}\n",
    ),
  ],
  ["deploy/values-prod.yaml", enc("b: file\nc: file\nd: file\nnested:\n  over: file\n")],
  ["secrets.txt", enc("not values")],
]);

const helm = new Helm();
const kustomize = new Kustomize();
after(() => {
  helm.close();
  kustomize.close();
});

test("merge order: chart defaults < valuesFiles < each valuesFrom < values", async () => {
  const read: string[] = [];
  const objects = await renderSource(
    { kustomize, helm },
    tree,
    {
      path: "deploy/chart",
      render: {
        type: "helm",
        helm: {
          valuesFiles: ["../values-prod.yaml"],
          valuesFrom: [
            { kind: "ConfigMap", name: "shared" },
            { kind: "Secret", name: "missing", optional: true },
          ],
          values: { d: "inline" },
        },
      },
    },
    {
      namespace: "team",
      applicationName: "shop",
      readValuesFrom: (ref) => {
        read.push(`${ref.kind}/${ref.name}`);
        return Promise.resolve(ref.name === "shared" ? "c: valuesFrom\nd: valuesFrom\n" : undefined);
      },
    },
  );
  assert.deepEqual(read, ["ConfigMap/shared", "Secret/missing"]);
  assert.equal(objects.length, 1);
  assert.deepEqual(objects[0]!.metadata, { name: "shop", namespace: "team" });
  assert.deepEqual((objects[0]! as { data?: unknown }).data, {
    a: "chart",
    b: "file",
    c: "valuesFrom",
    d: "inline",
    keep: "chart",
    over: "file",
  });
});

test("a values file outside the checkout, or missing, is refused before rendering", async () => {
  assert.throws(() => valuesFilePath("deploy/chart", "../../../etc/passwd"), /must lie inside the checkout/);
  assert.throws(() => valuesFilePath("deploy/chart", "/etc/passwd"), /must lie inside the checkout/);
  assert.equal(valuesFilePath("deploy/chart", "../../secrets.txt"), "secrets.txt");
  assert.equal(valuesFilePath("./deploy/chart/", "./v.yaml"), "deploy/chart/v.yaml");
  await assert.rejects(
    helmValues(tree, "deploy/chart", { valuesFiles: ["nope.yaml"] }, {
      namespace: "a",
      applicationName: "b",
    }),
    (err: Error) => err.name === "RenderFailure" && /valuesFiles nope.yaml: no such file/.test(err.message),
  );
});

test("a valuesFrom that is missing and not optional fails the render, naming the key", async () => {
  await assert.rejects(
    helmValues(tree, "deploy/chart", { valuesFrom: [{ kind: "Secret", name: "db", key: "prod.yaml" }] }, {
      namespace: "a",
      applicationName: "b",
      readValuesFrom: () => Promise.resolve(undefined),
    }),
    /valuesFrom Secret\/db: not found \(or it has no key prod.yaml\)/,
  );
});

test("render.type helm without a chart at the path says so", async () => {
  await assert.rejects(
    renderSource({ kustomize, helm }, tree, { path: "deploy", render: { type: "helm", helm: {} } }, {
      namespace: "a",
      applicationName: "b",
    }),
    /no Chart.yaml at the chart's path/,
  );
});
