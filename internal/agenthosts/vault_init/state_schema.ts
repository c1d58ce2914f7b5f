/** The shape of vault-init's state file (state.ts), checked with zod when the file is read. */
import { z } from "zod";
import { hostRecordSchema } from "../install_state_schema.ts";

const HostRecord = hostRecordSchema.extend({
  /** `sha256:<hex>` of the file before our first write; null when we created the file. */
  preHash: z.string().nullable(),
  /** The backup made before our first write, restored by uninstall when the entry was hand-edited. */
  backup: z.string().optional(),
});

export const StateSchema = z.object({
  version: z.literal(1),
  hostList: z.string(),
  server: z.string(),
  apiKey: z.object({ id: z.string(), prefix: z.string(), name: z.string(), sha256: z.string() }),
  hosts: z.record(z.string(), HostRecord),
  installedAt: z.string(),
  updatedAt: z.string(),
});

export type State = z.infer<typeof StateSchema>;
export type HostRecord = z.infer<typeof HostRecord>;
