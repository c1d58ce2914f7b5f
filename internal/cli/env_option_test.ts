import assert from "node:assert/strict";
import { test } from "node:test";
import { createProgram } from "./create_program.ts";
import { envOption } from "./env_option.ts";
import type { Io } from "./io.ts";
import { executeCaptured, withEnv } from "./testing.ts";

function demo(io: Io) {
  const program = createProgram({
    name: "demo",
    summary: "Demo tool.",
    examples: [],
    docs: "docs/demo.md",
    io,
  });
  program
    .command("show")
    .addOption(envOption("-n, --namespace <name>", "Namespace to use", "DEMO_NAMESPACE").default("default"))
    .action((flags) => void io.stdout.write(`${flags.namespace}\n`));
  return program;
}

test("without flag or variable, the default applies", async () => {
  await withEnv({ DEMO_NAMESPACE: undefined }, async () => {
    assert.equal((await executeCaptured(demo, ["show"])).stdout, "default\n");
  });
});

test("the environment variable supplies the value", async () => {
  await withEnv({ DEMO_NAMESPACE: "from-env" }, async () => {
    assert.equal((await executeCaptured(demo, ["show"])).stdout, "from-env\n");
  });
});

test("the flag overrides the environment variable", async () => {
  await withEnv({ DEMO_NAMESPACE: "from-env" }, async () => {
    assert.equal((await executeCaptured(demo, ["show", "-n", "from-flag"])).stdout, "from-flag\n");
  });
});

test("help shows the variable and the default", async () => {
  const r = await executeCaptured(demo, ["show", "--help"]);
  const unwrapped = r.stdout.replace(/\s+/g, " ");
  assert.match(
    unwrapped,
    /-n, --namespace <name> Namespace to use \(default: "default", env: DEMO_NAMESPACE\)/,
  );
});
