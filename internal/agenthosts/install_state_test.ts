import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  installStatePath,
  readInstallState,
  removeInstallState,
  writeInstallState,
} from "./install_state.ts";

describe("install state", () => {
  it("lives under XDG_CONFIG_HOME (or ~/.config) on Linux and Application Support on macOS", () => {
    assert.equal(
      installStatePath("memsvc", { home: "/h", platform: "linux", env: {} }),
      "/h/.config/memsvc/install.json",
    );
    assert.equal(
      installStatePath("memsvc", { home: "/h", platform: "linux", env: { XDG_CONFIG_HOME: "/x" } }),
      "/x/memsvc/install.json",
    );
    assert.equal(
      installStatePath("memsvc", { home: "/h", platform: "darwin", env: {} }),
      "/h/Library/Application Support/memsvc/install.json",
    );
  });

  it("is written with mode 0600, read back, refused when damaged, and removed", async () => {
    const dir = await mkdtemp(join(tmpdir(), "install-state-"));
    try {
      const path = join(dir, "memsvc", "install.json");
      assert.equal(await readInstallState(path), undefined);
      const state = {
        version: 1 as const,
        server: "http://127.0.0.1:7778",
        tokenHash: "ab".repeat(32),
        hosts: {
          cursor: {
            path: "/h/.cursor/mcp.json",
            transport: "http" as const,
            entryHash: "cd",
            installedAt: "2026",
          },
        },
      };
      await writeInstallState(path, state);
      assert.equal((await stat(path)).mode & 0o777, 0o600);
      assert.deepEqual(await readInstallState(path), state);
      await writeFile(path, '{"version": 2}');
      await assert.rejects(readInstallState(path), new RegExp(`${path}: is not an install state file`));
      await removeInstallState(path);
      assert.equal(await readInstallState(path), undefined);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
