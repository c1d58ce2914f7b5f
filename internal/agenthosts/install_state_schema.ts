/**
 * The host record every installer's state file holds (install_state.ts), as a zod schema for the
 * tools' own state schemas to build on. Imported only by those schemas, which load when a state
 * file is read.
 */
import { z } from "zod";

export const hostRecordSchema = z.object({
  path: z.string(),
  transport: z.enum(["http", "stdio"]),
  entryHash: z.string(),
  installedAt: z.string(),
});
