/** The public shape of a memory entry, as every route returns it. */
import type { Selectable } from "kysely";
import { sha256Hex } from "../../../internal/auth/hashed_session_tokens.ts";
import type { JsonValue, MemoryEntriesTable } from "../store/db.ts";

export type EntryRow = Selectable<MemoryEntriesTable>;

export interface MemoryEntry {
  id: string;
  content: string;
  content_hash: string;
  project: string | null;
  namespace: string;
  metadata: JsonValue;
  source_type: string | null;
  captured_from: string | null;
  confidence: number;
  hit_count: number;
  /** ISO 8601 timestamps. */
  created_at: string;
  updated_at: string;
  last_accessed_at: string | null;
  /** Demoted by decay (out of keyword search until a hit promotes it). */
  cold: boolean;
  /** The user who wrote it (in a project, one of its members). */
  user_id: string;
  /** The conversation it belongs to, if any. */
  session_id: string | null;
}

/** Columns to select for an entry (everything but the index bookkeeping sequences). */
export const ENTRY_COLUMNS = [
  "memory_entries.id",
  "memory_entries.user_id",
  "memory_entries.project_id",
  "memory_entries.namespace",
  "memory_entries.content",
  "memory_entries.content_hash",
  "memory_entries.hit_count",
  "memory_entries.metadata",
  "memory_entries.source_type",
  "memory_entries.captured_from",
  "memory_entries.confidence",
  "memory_entries.created_at",
  "memory_entries.updated_at",
  "memory_entries.last_accessed_at",
  "memory_entries.cold",
  "memory_entries.session_id",
] as const;

export function toEntry(row: Omit<EntryRow, "capture_seq" | "change_seq">): MemoryEntry {
  return {
    id: row.id,
    content: row.content,
    content_hash: row.content_hash,
    project: row.project_id,
    namespace: row.namespace,
    metadata: row.metadata,
    source_type: row.source_type,
    captured_from: row.captured_from,
    confidence: row.confidence,
    hit_count: row.hit_count,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
    last_accessed_at: row.last_accessed_at?.toISOString() ?? null,
    cold: row.cold,
    user_id: row.user_id,
    session_id: row.session_id,
  };
}

/**
 * SHA-256 of the trimmed content, as hex. node:crypto's synchronous hash: 1–3 µs of CPU where
 * `crypto.subtle.digest` took 35–45 µs on Bun (a round trip through its thread pool). Its await was
 * what let concurrent remembers batch; the group commit's `coalesce` does that now. Stays async for
 * its callers.
 */
export function contentHash(content: string): Promise<string> {
  return Promise.resolve(sha256Hex(content.trim()));
}

export function newEntryId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(12));
  return `m_${Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("")}`;
}
