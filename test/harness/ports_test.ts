import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, utimesSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { claim, freePort } from "./ports.ts";

test("a port picked in the last two minutes is not claimed again; an older pick is", () => {
  const ledger = mkdtempSync(join(tmpdir(), "ports-test-"));
  try {
    assert.equal(claim(40001, ledger), true);
    assert.equal(claim(40001, ledger), false, "another process's recent pick");
    assert.equal(claim(40002, ledger), true);
    const old = new Date(Date.now() - 121_000);
    utimesSync(join(ledger, "40001"), old, old);
    assert.equal(claim(40001, ledger), true, "a pick older than two minutes");
    assert.equal(claim(40001, ledger), false, "and the claim renewed it");
  } finally {
    rmSync(ledger, { recursive: true, force: true });
  }
});

test("freePort never hands out the same port twice in two minutes", async () => {
  const ports = new Set<number>();
  for (let i = 0; i < 30; i++) ports.add(await freePort());
  assert.equal(ports.size, 30);
});
