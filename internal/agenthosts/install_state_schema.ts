/** The shape of an installer's state file (install_state.ts), checked with zod when the file is read. */
import { z } from "zod";

const HostRecordSchema = z.object({
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
  hosts: z.record(z.string(), HostRecordSchema),
});

export type InstallState = z.infer<typeof InstallStateSchema>;
export type HostRecord = z.infer<typeof HostRecordSchema>;
