/**
 * `memsvc import`: loads a `memsvc export` file into this database, idempotently, in one transaction.
 *
 * - Users are matched by email. Missing ones stop the import before anything changes, naming them,
 *   unless `createUsers` (then they are created without a password: no sign-in until an admin sets one).
 * - Projects are matched by (owner, name key); otherwise created, keeping the exported id when free.
 * - Entries are matched by the dedupe key (user, project, namespace, content hash): an existing entry
 *   is left as it is; a new one is inserted with every exported field (its id kept when free) and
 *   embedded with this installation's embedder, in batches.
 * - Edges are remapped to the entries' ids here and inserted unless present.
 * A second import of the same file therefore changes nothing.
 */
import { Buffer } from "node:buffer";
import { sql, type Transaction } from "kysely";
import type { Database } from "../../../internal/db/mod.ts";
import { type Embedder, toBytes } from "../embeddings/mod.ts";
import { newEntryId } from "../memory/entry.ts";
import { LIMITS } from "../memory/limits.ts";
import { generateProjectId } from "../projects/project_id.ts";
import { projectNameKey } from "../projects/project_name.ts";
import type { MemsvcDatabase } from "../store/db.ts";
import {
  EXPORT_TYPE,
  EXPORT_VERSION,
  type ExportedEdge,
  type ExportedEntry,
  type ExportedProject,
  type ExportRecord,
} from "./export.ts";

export interface ImportOptions {
  createUsers?: boolean;
  embedder: Embedder;
  progress?: (message: string) => void;
  progressEvery?: number;
  /** Entries embedded and inserted per batch (default 100). */
  batchSize?: number;
}

export interface ImportResult {
  usersCreated: number;
  projectsCreated: number;
  entriesInserted: number;
  entriesExisting: number;
  edgesInserted: number;
}

/** Bad input: the message names the line and what is wrong. Nothing was changed. */
export class ImportError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ImportError";
  }
}

/** Checks the header and every record's shape; returns the records (header excluded). */
export async function parseExport(lines: AsyncIterable<string>): Promise<ExportRecord[]> {
  const records: ExportRecord[] = [];
  let n = 0;
  for await (const line of lines) {
    n++;
    let value: Record<string, unknown>;
    try {
      value = JSON.parse(line);
    } catch {
      throw new ImportError(`line ${n}: not JSON`);
    }
    if (n === 1) {
      if (value.type !== EXPORT_TYPE) {
        throw new ImportError(`line 1: not a memsvc export (expected {"type":"${EXPORT_TYPE}",...})`);
      }
      if (value.version !== EXPORT_VERSION) {
        throw new ImportError(
          `line 1: export version ${value.version} is not supported (this memsvc reads 1)`,
        );
      }
      continue;
    }
    const problem = recordProblem(value);
    if (problem) throw new ImportError(`line ${n}: ${problem}`);
    records.push(value as unknown as ExportRecord);
  }
  if (n === 0) throw new ImportError("the file is empty");
  return records;
}

function recordProblem(v: Record<string, unknown>): string | undefined {
  const str = (k: string) => typeof v[k] === "string";
  switch (v.type) {
    case "user":
      return str("email") && str("name") ? undefined : "a user needs email and name";
    case "project":
      return str("id") && str("name") && str("owner") && Array.isArray(v.members)
        ? undefined
        : "a project needs id, name, owner and members";
    case "entry":
      return ["id", "user", "namespace", "content", "content_hash", "created_at", "updated_at"].every(str)
        ? undefined
        : "an entry needs id, user, namespace, content, content_hash, created_at and updated_at";
    case "edge":
      return str("from") && str("to") && str("relation") ? undefined : "an edge needs from, to and relation";
    default:
      return `unknown record type ${JSON.stringify(v.type)}`;
  }
}

export async function importMemory(
  database: Database<MemsvcDatabase>,
  records: ExportRecord[],
  options: ImportOptions,
): Promise<ImportResult> {
  const result: ImportResult = {
    usersCreated: 0,
    projectsCreated: 0,
    entriesInserted: 0,
    entriesExisting: 0,
    edgesInserted: 0,
  };
  const every = options.progressEvery ?? 1000;
  const batchSize = options.batchSize ?? 100;
  const names = new Map<string, string>();
  for (const r of records) {
    if (r.type === "user") names.set(r.email, r.name);
    if (r.type === "project") {
      for (const e of [r.owner, ...r.members]) if (!names.has(e)) names.set(e, "");
    }
    if (r.type === "entry" && !names.has(r.user)) names.set(r.user, "");
  }
  await database.db.transaction().execute(async (trx) => {
    // The dedupe lookup below is an index probe per entry only while the planner's statistics know how
    // many entries there are. PGlite has no autovacuum: on stale ones it filtered every entry of the user
    // and namespace per probe (about 160 entries/s into 25,000 instead of 1,000+). Refreshed as it grows.
    await sql`analyze memory_entries`.execute(trx);
    let analyzeAt = 1_000;
    const userIds = await resolveUsers(trx, names, options.createUsers === true, result);
    const projectIds = new Map<string, string>();
    const entryIds = new Map<string, string>();
    const edges: ExportedEdge[] = [];
    let pending: ExportedEntry[] = [];
    let done = 0;
    const flush = async () => {
      if (!pending.length) return;
      await importEntries(trx, pending, {
        userIds,
        projectIds,
        entryIds,
        embedder: options.embedder,
        result,
      });
      const before = done;
      done += pending.length;
      pending = [];
      if (result.entriesInserted >= analyzeAt) {
        await sql`analyze memory_entries`.execute(trx);
        analyzeAt = result.entriesInserted * 2;
      }
      if (Math.floor(done / every) > Math.floor(before / every)) {
        options.progress?.(`imported ${done} entries (${result.entriesInserted} new)`);
      }
    };
    for (const record of records) {
      if (record.type === "project") {
        await flush();
        projectIds.set(record.id, await importProject(trx, record, userIds, result));
      } else if (record.type === "entry") {
        pending.push(record);
        if (pending.length >= batchSize) await flush();
      } else if (record.type === "edge") {
        edges.push(record);
      }
    }
    await flush();
    for (const edge of edges) {
      const from = entryIds.get(edge.from);
      const to = entryIds.get(edge.to);
      if (!from || !to) throw new ImportError(`edge ${edge.from} -> ${edge.to}: an end is not in the file`);
      const inserted = await trx.insertInto("memory_edges")
        .values({
          from_id: from,
          to_id: to,
          relation: edge.relation,
          weight: edge.weight ?? 1,
          // As text, so the microseconds a JavaScript Date would drop are kept.
          created_at: edge.created_at ? sql<Date>`${edge.created_at}::timestamptz` : undefined,
        })
        .onConflict((oc) => oc.columns(["from_id", "to_id", "relation"]).doNothing())
        .executeTakeFirst();
      result.edgesInserted += Number(inserted.numInsertedOrUpdatedRows ?? 0);
    }
  });
  return result;
}

async function resolveUsers(
  trx: Transaction<MemsvcDatabase>,
  names: Map<string, string>,
  create: boolean,
  result: ImportResult,
): Promise<Map<string, string>> {
  const emails = [...names.keys()];
  const ids = new Map<string, string>();
  if (emails.length) {
    const rows = await trx.selectFrom("user").select(["id", "email"]).where("email", "in", emails).execute();
    for (const row of rows) ids.set(row.email, row.id);
  }
  const missing = emails.filter((e) => !ids.has(e)).sort();
  if (missing.length && !create) {
    throw new ImportError(
      `${missing.length === 1 ? "user" : "users"} ${missing.join(", ")} not found in this database: ` +
        "create them first, or pass --create-users (they are created without a password)",
    );
  }
  for (const email of missing) {
    const id = crypto.randomUUID().replaceAll("-", "");
    await trx.insertInto("user").values({
      id,
      email,
      name: names.get(email) || email.split("@")[0]!,
      emailVerified: false,
      role: "user",
    }).execute();
    ids.set(email, id);
    result.usersCreated++;
  }
  return ids;
}

async function importProject(
  trx: Transaction<MemsvcDatabase>,
  project: ExportedProject,
  userIds: Map<string, string>,
  result: ImportResult,
): Promise<string> {
  const owner = userIds.get(project.owner)!;
  const nameKey = projectNameKey(project.name);
  let id = (await trx.selectFrom("projects").select("id").where("owner_id", "=", owner)
    .where("name_key", "=", nameKey).executeTakeFirst())?.id;
  if (!id) {
    const taken = await trx.selectFrom("projects").select("id").where("id", "=", project.id)
      .executeTakeFirst();
    id = taken ? generateProjectId() : project.id;
    await trx.insertInto("projects").values({ id, name: project.name, name_key: nameKey, owner_id: owner })
      .execute();
    result.projectsCreated++;
  }
  for (const member of project.members) {
    await trx.insertInto("project_members").values({ project_id: id, user_id: userIds.get(member)! })
      .onConflict((oc) => oc.columns(["project_id", "user_id"]).doNothing()).execute();
  }
  return id;
}

async function importEntries(
  trx: Transaction<MemsvcDatabase>,
  entries: ExportedEntry[],
  ctx: {
    userIds: Map<string, string>;
    projectIds: Map<string, string>;
    entryIds: Map<string, string>;
    embedder: Embedder;
    result: ImportResult;
  },
): Promise<void> {
  const keyed = entries.map((e, i) => {
    if (e.project !== null && e.project !== undefined && !ctx.projectIds.has(e.project)) {
      throw new ImportError(`entry ${e.id}: project ${e.project} is not in the file`);
    }
    return {
      i,
      u: ctx.userIds.get(e.user)!,
      p: e.project == null ? null : ctx.projectIds.get(e.project)!,
      n: e.namespace,
      h: e.content_hash,
    };
  });
  const existing = await sql<{ id: string; i: number }>`
    select m.id, k.i from memory_entries m
    join json_to_recordset(${JSON.stringify(keyed)}::text::json) as k(i int, u text, p text, n text, h text)
      on m.user_id = k.u and coalesce(m.project_id, '') = coalesce(k.p, '') and m.namespace = k.n
        and m.content_hash = k.h`.execute(trx);
  const found = new Map(existing.rows.map((r) => [Number(r.i), r.id]));
  const fresh = entries.filter((_, i) => !found.has(i));
  for (const [i, id] of found) ctx.entryIds.set(entries[i]!.id, id);
  ctx.result.entriesExisting += found.size;
  if (!fresh.length) return;
  const takenIds = new Set(
    (await trx.selectFrom("memory_entries").select("id").where("id", "in", fresh.map((e) => e.id)).execute())
      .map((r) => r.id),
  );
  const rows = fresh.map((e) => {
    const id = takenIds.has(e.id) ? newEntryId() : e.id;
    ctx.entryIds.set(e.id, id);
    return {
      id,
      user_id: ctx.userIds.get(e.user)!,
      project_id: e.project == null ? null : ctx.projectIds.get(e.project)!,
      namespace: e.namespace,
      content: e.content,
      content_hash: e.content_hash,
      metadata: e.metadata ?? {},
      source_type: e.source_type ?? null,
      captured_from: e.captured_from ?? null,
      confidence: e.confidence ?? 1,
      session_id: typeof e.session_id === "string" ? e.session_id.slice(0, LIMITS.maxSessionIdChars) : null,
      hit_count: e.hit_count ?? 0,
      cold: e.cold ?? false,
      created_at: e.created_at,
      updated_at: e.updated_at,
      last_accessed_at: e.last_accessed_at ?? null,
    };
  });
  // Timestamps go in as text with microseconds: a JavaScript Date would drop them.
  await sql`
    insert into memory_entries (id, user_id, project_id, namespace, content, content_hash, metadata,
      source_type, captured_from, confidence, session_id, hit_count, cold, created_at, updated_at,
      last_accessed_at)
    select id, user_id, project_id, namespace, content, content_hash, coalesce(metadata, '{}'::jsonb),
      source_type, captured_from, confidence, session_id, hit_count, cold, created_at, updated_at,
      last_accessed_at
    from json_to_recordset(${JSON.stringify(rows.map((r, n) => ({ ...r, n })))}::text::json)
      as r(id text, user_id text, project_id text, namespace text, content text, content_hash text,
        metadata jsonb, source_type text, captured_from text, confidence real, session_id text, hit_count int,
        cold boolean, created_at timestamptz, updated_at timestamptz, last_accessed_at timestamptz, n bigint)
    -- capture_seq follows the file's order, so a session's turns stay in order
    order by n`.execute(trx);
  ctx.result.entriesInserted += rows.length;
  const vectors = await ctx.embedder.embed(rows.map((r) => r.content));
  // As base64 text: PGlite serialises a bytea parameter several times slower than decode() parses this.
  const encoded = vectors.map((v) => {
    const bytes = toBytes(v);
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64");
  });
  await sql`insert into memory_vectors (entry_id, model, vector)
    select n.id, ${ctx.embedder.id}, decode(n.vector, 'base64')
    from unnest(${rows.map((r) => r.id)}::text[], ${encoded}::text[]) as n(id, vector)`.execute(trx);
}
