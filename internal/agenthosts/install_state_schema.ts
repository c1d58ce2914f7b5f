/**
 * The shape of memsvc's state file (install_state.ts), checked with zod when the file is read, and the
 * host record every installer's state holds (vault_init/state_schema.ts builds on it).
 */
import { z } from "zod";

export const hostRecordSchema = z.object({
  path: z.string(),
  transport: z.enum(["http", "stdio"]),
  entryHash: z.string(),
  installedAt: z.string(),
});

export const InstallStateSchema = z.object({
  version: z.literal(1),
  server: z.string(),
  tokenHash: z.string(),
  tokenLabel: z.string().optional(),
  hosts: z.record(z.string(), hostRecordSchema),
});

export type InstallState = z.infer<typeof InstallStateSchema>;
export type HostRecord = z.infer<typeof hostRecordSchema>;
