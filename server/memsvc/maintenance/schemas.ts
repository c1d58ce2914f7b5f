/** Schemas of the on-demand maintenance routes (routes/maintenance.ts): they validate and describe them. */
import { z } from "zod";

export const decayBody = z.object({
  effectiveDays: z.number().int().min(0).max(36_500).optional()
    .describe("one-shot override of the lifespan, in days"),
}).strict();

export const decayResult = z.object({
  demoted: z.number().int(),
  lifespan: z.string().describe("the lifespan rule applied"),
});

export const dreamResult = z.object({
  scanned: z.number().int(),
  merged: z.number().int(),
  edgesAdded: z.number().int(),
  durationMs: z.number(),
});

export const reapResult = z.object({
  staleVectors: z.number().int(),
  expiredSessions: z.number().int(),
  expiredVerifications: z.number().int(),
  oldActivitySamples: z.number().int(),
  cachedVectors: z.number().int(),
});

export const skippedRun = z.object({
  skipped: z.literal(true),
  reason: z.string(),
  loop: z.string(),
}).meta({ id: "SkippedRun" });
