import assert from "node:assert/strict";
import { test } from "node:test";
import { renderPlainYaml } from "./plain_yaml.ts";

const tree = (files: Record<string, string>) =>
  new Map(Object.entries(files).map(([k, v]) => [k, new TextEncoder().encode(v)]));

test("renders every manifest under the path, folders recursively, in a fixed order", () => {
  const t = tree({
    "apps/web/z.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: z}\n",
    "apps/web/a.yaml":
      "apiVersion: v1\nkind: Service\nmetadata: {name: a}\n---\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: a2}\n",
    "apps/web/sub/b.json": '{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "b"}}',
    "apps/web/list.yml":
      "apiVersion: v1\nkind: List\nitems:\n- {apiVersion: v1, kind: ConfigMap, metadata: {name: l1}}\n- {apiVersion: v1, kind: ConfigMap, metadata: {name: l2}}\n",
    "apps/web/README.md": "not a manifest",
    "apps/web/.gitsync.yaml": "applications: []",
    "apps/web/.hidden/x.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: hidden}\n",
    "apps/other/c.yaml": "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n",
  });
  assert.deepEqual(renderPlainYaml(t, "apps/web").map((o) => `${o.kind}/${o.metadata?.name}`), [
    "Service/a",
    "ConfigMap/a2",
    "ConfigMap/l1",
    "ConfigMap/l2",
    "Deployment/b",
    "ConfigMap/z",
  ]);
  assert.equal(
    renderPlainYaml(t, "./apps/web/").length,
    6,
    "the path may be written with ./ and a trailing /",
  );
});

test("refuses what is not a Kubernetes object, naming the file and the document", () => {
  for (
    const [content, message] of [
      [
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ok}\n---\n- a list\n",
        /x.yaml: document 2 is not a Kubernetes object/,
      ],
      ["kind: ConfigMap\nmetadata: {name: x}\n", /x.yaml: document 1 has no apiVersion or kind/],
      [
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {}\n",
        /x.yaml: document 1 \(ConfigMap\) has no metadata.name/,
      ],
      ["apiVersion: v1\nkind: [unclosed\n", /x.yaml: document 1: /],
    ] as const
  ) {
    assert.throws(() => renderPlainYaml(tree({ "d/x.yaml": content }), "d"), (err: Error) => {
      assert.equal(err.name, "RenderFailure");
      assert.match(err.message, message);
      return true;
    });
  }
});

test("a path that does not exist is a RenderFailure", () => {
  assert.throws(
    () => renderPlainYaml(tree({ "a/x.yaml": "" }), "b"),
    /path b does not exist in the repository/,
  );
});
