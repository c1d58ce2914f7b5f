import { describe, it } from "node:test";
import assert from "node:assert/strict";
import { mkdtemp, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { z } from "zod";
import {
  type HostRecord,
  installStatePath,
  readStateFile,
  removeStateFile,
  type StateFormat,
  writeStateFile,
} from "./install_state.ts";
import { hostRecordSchema } from "./install_state_schema.ts";

/** A tool's own state: its fields, and host records with one field more than every tool's. */
interface ToolState {
  version: 1;
  server: string;
  tokenHash: string;
  hosts: Record<string, HostRecord & { preHash: string | null }>;
}

const FORMAT: StateFormat<ToolState> = {
  kind: "a tool state file",
  schema: () =>
    Promise.resolve(z.object({
      version: z.literal(1),
      server: z.string(),
      tokenHash: z.string(),
      hosts: z.record(z.string(), hostRecordSchema.extend({ preHash: z.string().nullable() })),
    })),
};

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

  it("is written with mode 0600, read back with the tool's schema, refused when damaged, and removed", async () => {
    const dir = await mkdtemp(join(tmpdir(), "install-state-"));
    try {
      const path = join(dir, "memsvc", "install.json");
      assert.equal(await readStateFile(path, FORMAT), undefined);
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
            preHash: null,
          },
        },
      };
      await writeStateFile(path, state);
      assert.equal((await stat(path)).mode & 0o777, 0o600);
      assert.deepEqual(await readStateFile(path, FORMAT), state);
      const { preHash: _, ...withoutToolField } = state.hosts.cursor;
      await writeFile(path, JSON.stringify({ ...state, hosts: { cursor: withoutToolField } }));
      await assert.rejects(readStateFile(path, FORMAT), new RegExp(`${path}: is not a tool state file`));
      await writeFile(path, "{");
      await assert.rejects(readStateFile(path, FORMAT), new RegExp(`${path}: does not parse as JSON`));
      await removeStateFile(path);
      assert.equal(await readStateFile(path, FORMAT), undefined);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
