/** The shape of memsvc's install state (install_state.ts), checked with zod when the file is read. */
import { z } from "zod";
import { hostRecordSchema } from "../../internal/agenthosts/install_state_schema.ts";

export const InstallStateSchema = z.object({
  version: z.literal(1),
  server: z.string(),
  tokenHash: z.string(),
  tokenLabel: z.string().optional(),
  hosts: z.record(z.string(), hostRecordSchema),
});
