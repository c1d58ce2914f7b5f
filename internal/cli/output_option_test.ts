import assert from "node:assert/strict";
import { test } from "node:test";
import { createProgram } from "./create_program.ts";
import type { Io } from "./io.ts";
import { outputOption } from "./output_option.ts";
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
    .addOption(outputOption({ env: "DEMO_OUTPUT" }))
    .action((flags) => void io.stdout.write(`${flags.output}\n`));
  return program;
}

test("-o defaults to table and accepts json and yaml", async () => {
  await withEnv({ DEMO_OUTPUT: undefined }, async () => {
    assert.equal((await executeCaptured(demo, ["show"])).stdout, "table\n");
    assert.equal((await executeCaptured(demo, ["show", "-o", "json"])).stdout, "json\n");
    assert.equal((await executeCaptured(demo, ["show", "--output=yaml"])).stdout, "yaml\n");
  });
});

test("an unknown format is a usage error naming the allowed ones", async () => {
  assert.deepEqual(await executeCaptured(demo, ["show", "-o", "xml"]), {
    code: 2,
    stdout: "",
    stderr:
      "error: option '-o, --output <format>' argument 'xml' is invalid. Allowed choices are table, json, " +
      "yaml.\nRun 'demo show --help' for usage.\n",
  });
});

test("the environment variable sets the format and -o overrides it", async () => {
  await withEnv({ DEMO_OUTPUT: "yaml" }, async () => {
    assert.equal((await executeCaptured(demo, ["show"])).stdout, "yaml\n");
    assert.equal((await executeCaptured(demo, ["show", "-o", "json"])).stdout, "json\n");
  });
});

test("an unknown format in the environment variable is a usage error too", async () => {
  await withEnv({ DEMO_OUTPUT: "xml" }, async () => {
    const r = await executeCaptured(demo, ["show"]);
    assert.equal(r.code, 2);
    assert.match(
      r.stderr,
      /^error: option '-o, --output <format>' value 'xml' from env 'DEMO_OUTPUT' is invalid\./,
    );
  });
});
