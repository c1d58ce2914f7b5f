import assert from "node:assert/strict";
import { test } from "node:test";
import { Command } from "@commander-js/extra-typings";
import { CliError } from "./cli_error.ts";
import { createProgram } from "./create_program.ts";
import type { Io } from "./io.ts";
import { run } from "./run.ts";
import { executeCaptured, withEnv } from "./testing.ts";

/** A tool with one command whose argument picks how it ends. */
function demo(io: Io) {
  const program = createProgram({
    name: "demo",
    summary: "Demo tool.",
    examples: [],
    docs: "docs/demo.md",
    io,
  });
  program
    .command("get")
    .description("Get a thing")
    .argument("<name>")
    .option("--limit <n>", "How many")
    .action((name, flags, command) => {
      if (flags.limit !== undefined && !/^\d+$/.test(flags.limit)) command.error("--limit must be a number");
      if (name === "fail") throw new Error("backend unreachable");
      if (name === "refuse") throw new CliError("not allowed", 3);
      if (name === "misused") throw new CliError("--limit needs a name", 2);
      if (name === "string") throw "plain string";
      io.stdout.write(`got ${name}\n`);
    });
  return program;
}

test("a command that succeeds exits 0", async () => {
  assert.deepEqual(await executeCaptured(demo, ["get", "a"]), { code: 0, stdout: "got a\n", stderr: "" });
});

test("--help and -h print help on stdout and exit 0", async () => {
  for (const flag of ["--help", "-h"]) {
    const r = await executeCaptured(demo, [flag]);
    assert.equal(r.code, 0);
    assert.match(r.stdout, /^Usage: demo \[options\] \[command\]/);
    assert.equal(r.stderr, "");
  }
});

test("the help command exits 0", async () => {
  const r = await executeCaptured(demo, ["help", "get"]);
  assert.equal(r.code, 0);
  assert.match(r.stdout, /^Usage: demo get \[options\] <name>/);
});

test("no command prints help on stderr and exits 2", async () => {
  const r = await executeCaptured(demo, []);
  assert.equal(r.code, 2);
  assert.equal(r.stdout, "");
  assert.match(r.stderr, /^Usage: demo /);
});

test("an unknown option exits 2 with one error line and a hint", async () => {
  assert.deepEqual(await executeCaptured(demo, ["--bogus"]), {
    code: 2,
    stdout: "",
    stderr: "error: unknown option '--bogus'\nRun 'demo --help' for usage.\n",
  });
});

test("a suggestion stays on the error line", async () => {
  const r = await executeCaptured(demo, ["get", "a", "--limt", "3"]);
  assert.equal(r.code, 2);
  assert.equal(
    r.stderr,
    "error: unknown option '--limt' (Did you mean --limit?)\nRun 'demo get --help' for usage.\n",
  );
});

test("an unknown command exits 2 even when help is asked for", async () => {
  for (const args of [["gett", "--help"], ["-h", "gett"], ["help", "gett"]]) {
    const r = await executeCaptured(demo, args);
    assert.deepEqual(
      r,
      {
        code: 2,
        stdout: "",
        stderr: "error: unknown command 'gett' (Did you mean get?)\nRun 'demo --help' for usage.\n",
      },
      args.join(" "),
    );
  }
  // A real command's help still works, and so does help for it.
  for (const args of [["get", "--help"], ["help", "get"]]) {
    const r = await executeCaptured(demo, args);
    assert.equal(r.code, 0, args.join(" "));
    assert.match(r.stdout, /Usage: demo get \[options\] <name>/);
  }
});

test("an unknown command exits 2", async () => {
  const r = await executeCaptured(demo, ["gett"]);
  assert.equal(r.code, 2);
  assert.equal(r.stderr, "error: unknown command 'gett' (Did you mean get?)\nRun 'demo --help' for usage.\n");
});

test("a missing argument exits 2 and the hint names the subcommand", async () => {
  const r = await executeCaptured(demo, ["get"]);
  assert.equal(r.code, 2);
  assert.equal(r.stderr, "error: missing required argument 'name'\nRun 'demo get --help' for usage.\n");
});

test("an option without its value exits 2", async () => {
  const r = await executeCaptured(demo, ["get", "a", "--limit"]);
  assert.equal(r.code, 2);
  assert.equal(r.stderr, "error: option '--limit <n>' argument missing\nRun 'demo get --help' for usage.\n");
});

test("validation in the action reports a usage error with command.error: exit 2, nothing run", async () => {
  assert.deepEqual(await executeCaptured(demo, ["get", "a", "--limit", "ten"]), {
    code: 2,
    stdout: "",
    stderr: "error: --limit must be a number\nRun 'demo get --help' for usage.\n",
  });
});

test("an error thrown by the action exits 1 with one line, no stack", async () => {
  await withEnv({ DEBUG: undefined }, async () => {
    assert.deepEqual(await executeCaptured(demo, ["get", "fail"]), {
      code: 1,
      stdout: "",
      stderr: "error: backend unreachable\n",
    });
  });
});

test("with DEBUG set, the stack follows the error line", async () => {
  await withEnv({ DEBUG: "1" }, async () => {
    const r = await executeCaptured(demo, ["get", "fail"]);
    assert.equal(r.code, 1);
    assert.match(r.stderr, /^error: backend unreachable\nError: backend unreachable\n\s+at /);
  });
});

test("a CliError chooses the exit code", async () => {
  assert.deepEqual(await executeCaptured(demo, ["get", "refuse"]), {
    code: 3,
    stdout: "",
    stderr: "error: not allowed\n",
  });
});

test("a CliError with exit code 2 is a usage error: the hint names the command", async () => {
  assert.deepEqual(await executeCaptured(demo, ["get", "misused"]), {
    code: 2,
    stdout: "",
    stderr: "error: --limit needs a name\nRun 'demo get --help' for usage.\n",
  });
});

test("an unknown command is a usage error with or without --help", async () => {
  for (const args of [["bogus"], ["bogus", "--help"], ["help", "bogus"]]) {
    const r = await executeCaptured(demo, args);
    assert.equal(r.code, 2, args.join(" "));
    assert.equal(r.stdout, "", args.join(" "));
    assert.match(
      r.stderr,
      /^error: unknown command 'bogus'.*\nRun 'demo --help' for usage\.\n$/,
      args.join(" "),
    );
  }
});

test("a thrown non-Error is printed as text and exits 1", async () => {
  const r = await executeCaptured(demo, ["get", "string"]);
  assert.deepEqual([r.code, r.stderr], [1, "error: plain string\n"]);
});

test("a command added with addCommand gets the same error handling and output", async () => {
  const r = await executeCaptured((io) => demo(io).addCommand(new Command("raw").argument("<file>")), [
    "raw",
  ]);
  assert.deepEqual(r, {
    code: 2,
    stdout: "",
    stderr: "error: missing required argument 'file'\nRun 'demo raw --help' for usage.\n",
  });
});

test("run sets process.exitCode instead of exiting", async () => {
  const saved = process.exitCode;
  try {
    await run(demo({ stdout: { write: () => true }, stderr: { write: () => true } }), ["--bogus"]);
    assert.equal(process.exitCode, 2);
  } finally {
    process.exitCode = saved;
  }
});
