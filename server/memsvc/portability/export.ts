/**
 * `memsvc export`: a user's memory as portable JSON Lines, free of secrets and of anything another
 * installation would compute itself. Format (version 1), one JSON object per line:
 *
 *   {"type":"memsvc-export","version":1,"exportedAt":"..."}
 *   then per user (by email): {"type":"user",email,name}, the projects their entries use or they own
 *   (each once) {"type":"project",id,name,owner,members}, their entries {"type":"entry",...} and the
 *   edges leaving their entries to other exported entries {"type":"edge",from,to,relation,weight,created_at}.
 *
 * No vectors (the importer embeds with its own embedder), no password hashes, tokens or sessions.
 * Timestamps are UTC with microseconds, so an export of an import is byte-for-byte the same.
 */
import { sql } from "kysely";
import type { Database } from "../../../internal/db/mod.ts";
import type { JsonValue, MemsvcDatabase } from "../store/db.ts";
import type { LineSink } from "./lines.ts";

export const EXPORT_TYPE = "memsvc-export";
export const EXPORT_VERSION = 1;

export interface ExportedUser {
  type: "user";
  email: string;
  name: string;
}
export interface ExportedProject {
  type: "project";
  id: string;
  name: string;
  owner: string;
  members: string[];
}
export interface ExportedEntry {
  type: "entry";
  id: string;
  user: string;
  project: string | null;
  namespace: string;
  content: string;
  content_hash: string;
  metadata: JsonValue;
  source_type: string | null;
  captured_from: string | null;
  confidence: number;
  /** Absent in files written before sessions existed. */
  session_id?: string | null;
  hit_count: number;
  cold: boolean;
  created_at: string;
  updated_at: string;
  last_accessed_at: string | null;
}
export interface ExportedEdge {
  type: "edge";
  from: string;
  to: string;
  relation: string;
  weight: number;
  created_at: string;
}
export type ExportRecord = ExportedUser | ExportedProject | ExportedEntry | ExportedEdge;

export interface ExportOptions {
  /** Only this user (by email); default every user. */
  email?: string;
  /** Called every `progressEvery` records. */
  progress?: (message: string) => void;
  progressEvery?: number;
}

const BATCH = 500;
/** A timestamp as UTC ISO 8601 with microseconds, independent of the session's time zone. */
const utc = (column: string) =>
  sql<string>`to_char(${sql.ref(column)} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

export async function exportMemory(
  database: Database<MemsvcDatabase>,
  sink: LineSink,
  options: ExportOptions = {},
): Promise<{ users: number; projects: number; entries: number; edges: number }> {
  const counts = { users: 0, projects: 0, entries: 0, edges: 0 };
  const every = options.progressEvery ?? 1000;
  let records = 0;
  const emit = async (record: Record<string, unknown>) => {
    await sink.write(JSON.stringify(record));
    if (++records % every === 0) options.progress?.(`exported ${records} records`);
  };
  // One read-only snapshot, so entries, edges and projects agree with each other.
  await database.db.transaction().setIsolationLevel("repeatable read").setAccessMode("read only")
    .execute(async (trx) => {
      let users = trx.selectFrom("user").select(["id", "email", "name"]).orderBy("email");
      if (options.email) users = users.where("email", "=", options.email);
      const userRows = await users.execute();
      if (options.email && userRows.length === 0) throw new Error(`no user with email ${options.email}`);
      const selected = userRows.map((u) => u.id);
      const emails = new Map(
        (await trx.selectFrom("user").select(["id", "email"]).execute()).map((u) => [u.id, u.email]),
      );
      const emailOf = (id: string) => emails.get(id) ?? id;
      await sink.write(
        JSON.stringify({ type: EXPORT_TYPE, version: EXPORT_VERSION, exportedAt: new Date().toISOString() }),
      );
      const emittedProjects = new Set<string>();
      for (const user of userRows) {
        await emit({ type: "user", email: user.email, name: user.name });
        counts.users++;
        const projects = await trx.selectFrom("projects").select(["id", "name", "owner_id", "name_key"])
          .where((eb) =>
            eb.or([
              eb("owner_id", "=", user.id),
              eb(
                "id",
                "in",
                eb.selectFrom("memory_entries").select("project_id").where("user_id", "=", user.id)
                  .where("project_id", "is not", null).$narrowType<{ project_id: string }>(),
              ),
            ])
          )
          .orderBy("name_key").orderBy("id").execute();
        for (const project of projects) {
          if (emittedProjects.has(project.id)) continue;
          emittedProjects.add(project.id);
          const members = await trx.selectFrom("project_members").select("user_id")
            .where("project_id", "=", project.id).execute();
          await emit({
            type: "project",
            id: project.id,
            name: project.name,
            owner: emailOf(project.owner_id),
            members: members.map((m) => emailOf(m.user_id)).sort(),
          });
          counts.projects++;
        }
        let after: { created_at: string; id: string } | undefined;
        for (;;) {
          let page = trx.selectFrom("memory_entries").where("user_id", "=", user.id)
            .select([
              "id",
              "project_id",
              "namespace",
              "content",
              "content_hash",
              "metadata",
              "source_type",
              "captured_from",
              "confidence",
              "session_id",
              "hit_count",
              "cold",
              utc("created_at").as("created"),
              utc("updated_at").as("updated"),
              utc("last_accessed_at").as("accessed"),
            ])
            .orderBy("created_at").orderBy("id").limit(BATCH);
          if (after) {
            const { created_at, id } = after;
            page = page.where(sql<boolean>`(created_at, id) > (${created_at}::timestamptz, ${id})`);
          }
          const rows = await page.execute();
          for (const row of rows) {
            await emit({
              type: "entry",
              id: row.id,
              user: user.email,
              project: row.project_id,
              namespace: row.namespace,
              content: row.content,
              content_hash: row.content_hash,
              metadata: row.metadata,
              source_type: row.source_type,
              captured_from: row.captured_from,
              confidence: row.confidence,
              session_id: row.session_id,
              hit_count: row.hit_count,
              cold: row.cold,
              created_at: row.created,
              updated_at: row.updated,
              last_accessed_at: row.accessed,
            });
            counts.entries++;
          }
          if (rows.length < BATCH) break;
          const last = rows[rows.length - 1]!;
          after = { created_at: last.created, id: last.id };
        }
        const edges = await trx.selectFrom("memory_edges as g")
          .innerJoin("memory_entries as f", "f.id", "g.from_id")
          .innerJoin("memory_entries as t", "t.id", "g.to_id")
          .where("f.user_id", "=", user.id)
          .where("t.user_id", "in", selected)
          .select(["g.from_id", "g.to_id", "g.relation", "g.weight", utc("g.created_at").as("created")])
          .orderBy("g.from_id").orderBy("g.to_id").orderBy("g.relation").execute();
        for (const edge of edges) {
          await emit({
            type: "edge",
            from: edge.from_id,
            to: edge.to_id,
            relation: edge.relation,
            weight: edge.weight,
            created_at: edge.created,
          });
          counts.edges++;
        }
      }
    });
  return counts;
}
