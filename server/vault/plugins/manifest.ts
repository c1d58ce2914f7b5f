/**
 * A plugin's manifest.json (the reference's docs/PLUGINS.md): id, name, version, the oldest vault
 * version it runs on, its server and client entries (files inside the plugin's folder) and its
 * settings, each global or per user.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";

const SEMVER = /^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?$/;
/** An entry file: a relative path inside the plugin's folder, never leaving it. */
const entry = z.string().min(1).max(200)
  .regex(/^(?!\/)(?!.*(?:^|\/)\.\.(?:\/|$))[A-Za-z0-9._/-]+\.(?:js|mjs)$/, {
    message: "must be a .js or .mjs file inside the plugin's folder (a relative path, no ..)",
  });

const settingCommon = {
  key: z.string().regex(/^[A-Za-z][A-Za-z0-9_.-]{0,63}$/, { message: "must be a name such as lineNumbers" }),
  label: z.string().min(1).max(200).optional(),
  /** Each user sets their own value (default: one value, set by an admin). */
  perUser: z.boolean().default(false),
};
const setting = z.discriminatedUnion("type", [
  z.strictObject({ ...settingCommon, type: z.literal("string"), default: z.string().max(10_000).optional() }),
  z.strictObject({ ...settingCommon, type: z.literal("boolean"), default: z.boolean().optional() }),
  z.strictObject({ ...settingCommon, type: z.literal("number"), default: z.number().optional() }),
]);

export const pluginManifest = z.strictObject({
  id: z.string().regex(/^[a-z0-9][a-z0-9-]{1,63}$/, {
    message: "must be 2 to 64 lowercase letters, digits or dashes, starting with a letter or digit",
  }),
  name: z.string().min(1).max(100),
  version: z.string().regex(SEMVER, { message: "must be a semantic version such as 1.2.3" }),
  description: z.string().max(1000).optional(),
  author: z.string().max(200).optional(),
  /** The oldest vault version the plugin runs on. */
  minVersion: z.string().regex(SEMVER, { message: "must be a semantic version such as 3.1.0" }).optional(),
  server: entry.optional(),
  client: entry.optional(),
  settings: z.array(setting).max(50).default([]),
}).refine((m) => m.server || m.client, { message: "needs a server or a client entry (or both)" })
  .refine((m) => new Set(m.settings.map((s) => s.key)).size === m.settings.length, {
    message: "setting keys must be unique",
    path: ["settings"],
  });

export type PluginManifest = z.output<typeof pluginManifest>;
export type PluginSetting = PluginManifest["settings"][number];

export class ManifestError extends Error {
  constructor(
    message: string,
    readonly issues: { path: (string | number)[]; message: string; code: string }[],
  ) {
    super(message);
  }
}

/** Reads and validates `<dir>/manifest.json`; ManifestError says what is wrong. */
export async function readManifest(dir: string): Promise<PluginManifest> {
  let text: string;
  try {
    text = await readFile(join(dir, "manifest.json"), "utf8");
  } catch {
    throw new ManifestError("no manifest.json in the plugin's folder", [
      { path: ["manifest.json"], message: "missing or unreadable", code: "missing" },
    ]);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new ManifestError("manifest.json is not JSON", [
      { path: ["manifest.json"], message: (err as Error).message, code: "invalid_json" },
    ]);
  }
  const parsed = pluginManifest.safeParse(json);
  if (!parsed.success) {
    throw new ManifestError(
      "manifest.json is not valid",
      parsed.error.issues.map((i) => ({
        path: ["manifest.json", ...i.path.map((p) => typeof p === "symbol" ? String(p) : p)],
        message: i.message,
        code: i.code,
      })),
    );
  }
  return parsed.data;
}

/** Whether `version` (of the vault) is at least `min`; pre-release tags are ignored. */
export function satisfiesMinVersion(version: string, min: string | undefined): boolean {
  if (!min) return true;
  const parts = (v: string) => v.replace(/^v/, "").split("-")[0]!.split(".").map((n) => Number(n) || 0);
  const a = parts(version);
  const b = parts(min);
  for (let i = 0; i < 3; i++) if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) > (b[i] ?? 0);
  return true;
}
