/**
 * vault-init's record of an install, ~/.config/vault-init/state.json (mode 0600, written atomically;
 * internal/agenthosts/install_state.ts): the server, the API key's id, prefix, name and SHA-256 (never
 * the key itself), and per host the file, the transport, the SHA-256 of the whole file before our
 * write and of our canonical entry after it. Uninstall judges drift on the entry hash alone, since
 * hosts such as Claude Code rewrite their files constantly.
 */
import { join } from "node:path";
import type { HostEnv, HostRecord as BaseRecord, StateFormat } from "../../internal/agenthosts/mod.ts";
import { xdgConfigHome } from "../../internal/agenthosts/mod.ts";

export interface HostRecord extends BaseRecord {
  /** `sha256:<hex>` of the file before our first write; null when we created the file. */
  preHash: string | null;
  /** The backup made before our first write, restored by uninstall when the entry was hand-edited. */
  backup?: string;
}

export interface State {
  version: 1;
  hostList: string;
  server: string;
  apiKey: { id: string; prefix: string; name: string; sha256: string };
  hosts: Record<string, HostRecord>;
  installedAt: string;
  updatedAt: string;
}

export const STATE: StateFormat<State> = {
  kind: "a vault-init state file",
  schema: () => import("./state_schema.ts").then((m) => m.StateSchema),
};

/** `$XDG_CONFIG_HOME/vault-init/state.json`, ~/.config by default, on macOS as well (the contract's path). */
export function statePath(h: HostEnv): string {
  return join(xdgConfigHome(h), "vault-init", "state.json");
}
