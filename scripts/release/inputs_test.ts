import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { packageKey, spdxFromText, thirdParty } from "./inputs.ts";
import { executablePlatform } from "./targets.ts";

test("packageKey: the lock file's key of the package a bundled file belongs to", () => {
  assert.equal(packageKey("node_modules/zod/v4/core/index.js"), "node_modules/zod");
  assert.equal(packageKey("node_modules/@s/pkg/lib/x.js"), "node_modules/@s/pkg");
  assert.equal(packageKey("node_modules/a/node_modules/@s/b/x.js"), "node_modules/a/node_modules/@s/b");
  assert.equal(packageKey("server/memsvc/app.ts"), undefined);
});

test("spdxFromText: the usual license texts", () => {
  assert.equal(spdxFromText("Apache License\n  Version 2.0, January 2004"), "Apache-2.0");
  assert.equal(spdxFromText("Permission is hereby granted, free of charge, to any person"), "MIT");
  assert.equal(
    spdxFromText("Redistribution and use in source and binary forms ... Neither the name of Google"),
    "BSD-3-Clause",
  );
  assert.equal(spdxFromText("All rights reserved."), "NOASSERTION");
});

test("thirdParty: npm packages from the bundle's inputs, with the lock's version and the old licenses form", () => {
  const parts = thirdParty("gitsync", ["linux-x64"], {
    bundled: ["node_modules/ssh2/lib/client.js", "node_modules/yaml/dist/index.js", "cmd/gitsync/main.ts"],
    assets: [],
  });
  assert.deepEqual(parts.map((p) => p.name), ["@oven/bun-linux-x64", "ssh2", "yaml"]);
  const ssh2 = parts.find((p) => p.name === "ssh2")!;
  assert.equal(ssh2.license, "MIT"); // package.json's `licenses: [{type: "MIT"}]`, which the lock omits
  assert.equal(ssh2.version, JSON.parse(readFileSync("node_modules/ssh2/package.json", "utf8")).version);
  assert.match(ssh2.purl, /^pkg:npm\/ssh2@/);
  assert.match(ssh2.texts[0]!.text, /Permission is hereby granted/);
  assert.throws(
    () => thirdParty("gitsync", ["linux-x64"], { bundled: ["node_modules/not-installed/x.js"], assets: [] }),
    /node_modules\/not-installed is bundled but package-lock.json has no entry/,
  );
});

test("executablePlatform: ELF and Mach-O headers by CPU; anything else is unknown", () => {
  const header = (bytes: number[]) => new Uint8Array([...bytes, ...new Array(64 - bytes.length).fill(0)]);
  const macho = (cpu: number) => header([0xcf, 0xfa, 0xed, 0xfe, cpu & 0xff, (cpu >> 8) & 0xff, 0, 1]);
  assert.equal(executablePlatform(macho(0x07)), "darwin-x64");
  assert.equal(executablePlatform(macho(0x0c)), "darwin-arm64");
  const elf = (machine: number) => {
    const h = header([0x7f, 0x45, 0x4c, 0x46, 2, 1]);
    h[18] = machine;
    return h;
  };
  assert.equal(executablePlatform(elf(62)), "linux-x64");
  assert.equal(executablePlatform(elf(183)), "linux-arm64");
  assert.equal(executablePlatform(elf(40)), undefined); // 32-bit ARM
  assert.equal(
    executablePlatform(new Uint8Array(readFileSync("/bin/sh").subarray(0, 64))),
    `linux-${process.arch}`,
  );
  assert.equal(executablePlatform(header([0x4d, 0x5a])), undefined); // a Windows executable
});
