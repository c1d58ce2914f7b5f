/** The shape of vault-init's state file (state.ts), checked with zod when the file is read. */
import { z } from "zod";
import { hostRecordSchema } from "../../internal/agenthosts/install_state_schema.ts";

export const StateSchema = z.object({
  version: z.literal(1),
  hostList: z.string(),
  server: z.string(),
  apiKey: z.object({ id: z.string(), prefix: z.string(), name: z.string(), sha256: z.string() }),
  hosts: z.record(
    z.string(),
    hostRecordSchema.extend({ preHash: z.string().nullable(), backup: z.string().optional() }),
  ),
  installedAt: z.string(),
  updatedAt: z.string(),
});
