import assert from "node:assert/strict";
import { test } from "node:test";
import { parse as parseYaml } from "yaml";
import { VERSION } from "../version/version.ts";
import { createProgram } from "./create_program.ts";
import type { Io } from "./io.ts";
import { executeCaptured, withEnv } from "./testing.ts";

function demo(io: Io) {
  return createProgram({
    name: "demo",
    summary: "Demo is a tool that shows the framework.",
    description: "It has a second paragraph.",
    examples: ["# Print the version\ndemo version", "# As JSON\ndemo version -o json"],
    docs: "docs/demo.md",
    outputEnv: "DEMO_OUTPUT",
    io,
  });
}

test("--version and version print the same VERSION", async () => {
  await withEnv({ DEMO_OUTPUT: undefined }, async () => {
    assert.deepEqual(await executeCaptured(demo, ["--version"]), {
      code: 0,
      stdout: `${VERSION}\n`,
      stderr: "",
    });
    assert.deepEqual(await executeCaptured(demo, ["version"]), {
      code: 0,
      stdout: `${VERSION}\n`,
      stderr: "",
    });
  });
});

test("version -o json and -o yaml print one document with the version", async () => {
  const json = await executeCaptured(demo, ["version", "-o", "json"]);
  assert.equal(json.stdout, `{\n  "version": "${VERSION}"\n}\n`);
  const yaml = await executeCaptured(demo, ["version", "-o", "yaml"]);
  assert.equal(yaml.stdout, `version: ${VERSION}\n`);
  assert.deepEqual(parseYaml(yaml.stdout), { version: VERSION });
});

test("version honours the tool's output variable", async () => {
  await withEnv({ DEMO_OUTPUT: "json" }, async () => {
    assert.deepEqual(JSON.parse((await executeCaptured(demo, ["version"])).stdout), { version: VERSION });
  });
});

test("help says what the tool is, then commands, examples and where the docs are", async () => {
  const { code, stdout } = await executeCaptured(demo, ["--help"]);
  assert.equal(code, 0);
  assert.match(
    stdout,
    /^Usage: demo \[options\] \[command\]\n\nDemo is a tool that shows the framework\.\n\n/,
  );
  assert.match(stdout, /It has a second paragraph\./);
  assert.match(stdout, /\n {2}--version +Print the version\n {2}-h, --help +Show help\n/);
  assert.ok(
    stdout.endsWith(
      "Examples:\n  # Print the version\n  demo version\n\n  # As JSON\n  demo version -o json\n\n" +
        "Documentation: docs/demo.md\n",
    ),
    stdout,
  );
});

test("the version command has its own examples", async () => {
  const { stdout } = await executeCaptured(demo, ["version", "--help"]);
  assert.ok(stdout.includes("Examples:\n  # Print the version\n  demo version\n"), stdout);
});
