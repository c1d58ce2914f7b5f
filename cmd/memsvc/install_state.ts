/**
 * `memsvc install`'s state file, ~/.config/memsvc/install.json (macOS: ~/Library/Application
 * Support/memsvc/install.json): the server, the API token's SHA-256 and label, and per host what was
 * written (internal/agenthosts/install_state.ts).
 */
import type { HostRecord, StateFormat } from "../../internal/agenthosts/mod.ts";

export interface InstallState {
  version: 1;
  server: string;
  tokenHash: string;
  tokenLabel?: string;
  hosts: Record<string, HostRecord>;
}

export const INSTALL_STATE: StateFormat<InstallState> = {
  kind: "an install state file",
  schema: () => import("./install_state_schema.ts").then((m) => m.InstallStateSchema),
};
