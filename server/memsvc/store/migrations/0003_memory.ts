/**
 * The memory engine's schema: projects and their members, each user's active project, memory
 * entries with a generated full-text vector, graph edges, embedding vectors and per-minute
 * activity samples.
 *
 * Vectors are float32 bytes (bytea), not pgvector: neither Debian's PostgreSQL 15 nor PGlite 0.5
 * ships pgvector, so similarity is computed in process over a cache kept in step by `seq`.
 * Dedupe is a unique index on (user, project, namespace, content hash), so concurrent identical
 * writes resolve in the database with ON CONFLICT instead of racing in the application.
 */
import { sql } from "kysely";
import type { Migration } from "../../../../internal/db/mod.ts";

export const memory: Migration = {
  async up(db) {
    const now = sql`now()`;
    await db.schema.createTable("projects")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("name", "text", (c) => c.notNull())
      /** NFKC-normalised, lower-cased name: what uniqueness and lookups by name compare. */
      .addColumn("name_key", "text", (c) => c.notNull())
      .addColumn("owner_id", "text", (c) => c.notNull().references("user.id").onDelete("cascade"))
      .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(now))
      .addUniqueConstraint("projects_owner_name_key", ["owner_id", "name_key"])
      .execute();
    await db.schema.createTable("project_members")
      .addColumn("project_id", "text", (c) => c.notNull().references("projects.id").onDelete("cascade"))
      .addColumn("user_id", "text", (c) => c.notNull().references("user.id").onDelete("cascade"))
      .addColumn("added_at", "timestamptz", (c) => c.notNull().defaultTo(now))
      .addPrimaryKeyConstraint("project_members_pkey", ["project_id", "user_id"])
      .execute();
    await db.schema.createIndex("project_members_user_idx").on("project_members").column("user_id").execute();
    await db.schema.createTable("user_active_project")
      .addColumn("user_id", "text", (c) => c.primaryKey().references("user.id").onDelete("cascade"))
      .addColumn("project_id", "text", (c) => c.notNull().references("projects.id").onDelete("cascade"))
      .addColumn("set_at", "timestamptz", (c) => c.notNull().defaultTo(now))
      .execute();

    await db.schema.createTable("memory_entries")
      .addColumn("id", "text", (c) => c.primaryKey())
      .addColumn("user_id", "text", (c) => c.notNull().references("user.id").onDelete("cascade"))
      .addColumn("project_id", "text", (c) => c.references("projects.id").onDelete("cascade"))
      .addColumn("namespace", "text", (c) => c.notNull().defaultTo("default"))
      .addColumn("content", "text", (c) => c.notNull())
      .addColumn("content_hash", "text", (c) => c.notNull())
      .addColumn("hit_count", "integer", (c) => c.notNull().defaultTo(0))
      .addColumn("metadata", "jsonb", (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
      .addColumn("source_type", "text")
      .addColumn("captured_from", "text")
      .addColumn("confidence", "real", (c) => c.notNull().defaultTo(1))
      .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(now))
      .addColumn("updated_at", "timestamptz", (c) => c.notNull().defaultTo(now))
      .addColumn("last_accessed_at", "timestamptz")
      .addColumn(
        "tsv",
        sql`tsvector`,
        (c) => c.generatedAlwaysAs(sql`to_tsvector('english', content)`).stored(),
      )
      .execute();
    // One row per (user, project or none, namespace, content): the dedupe key.
    await sql`create unique index memory_entries_dedupe_idx on memory_entries
      (user_id, coalesce(project_id, ''), namespace, content_hash)`.execute(db);
    await db.schema.createIndex("memory_entries_user_scope_idx").on("memory_entries")
      .columns(["user_id", "project_id", "namespace", "created_at"]).execute();
    await db.schema.createIndex("memory_entries_project_idx").on("memory_entries")
      .columns(["project_id", "namespace", "created_at"]).execute();
    await sql`create index memory_entries_tsv_idx on memory_entries using gin (tsv)`.execute(db);

    await db.schema.createTable("memory_edges")
      .addColumn("from_id", "text", (c) => c.notNull().references("memory_entries.id").onDelete("cascade"))
      .addColumn("to_id", "text", (c) => c.notNull().references("memory_entries.id").onDelete("cascade"))
      .addColumn("relation", "text", (c) => c.notNull())
      .addColumn("weight", "real", (c) => c.notNull().defaultTo(1))
      .addColumn("created_at", "timestamptz", (c) => c.notNull().defaultTo(now))
      .addPrimaryKeyConstraint("memory_edges_pkey", ["from_id", "to_id", "relation"])
      .execute();
    await db.schema.createIndex("memory_edges_to_idx").on("memory_edges").column("to_id").execute();

    await sql`create sequence memory_vectors_seq`.execute(db);
    await db.schema.createTable("memory_vectors")
      .addColumn(
        "entry_id",
        "text",
        (c) => c.primaryKey().references("memory_entries.id").onDelete("cascade"),
      )
      /** Which embedder made it (id and dimensions); vectors of another model are ignored. */
      .addColumn("model", "text", (c) => c.notNull())
      .addColumn("vector", "bytea", (c) => c.notNull())
      /** Increases on every write, so caches fetch only what changed since they last looked. */
      .addColumn("seq", "bigint", (c) => c.notNull().defaultTo(sql`nextval('memory_vectors_seq')`))
      .execute();
    await db.schema.createIndex("memory_vectors_seq_idx").on("memory_vectors").column("seq").execute();

    await db.schema.createTable("metrics_samples")
      .addColumn("minute", "timestamptz", (c) => c.notNull())
      .addColumn("user_id", "text", (c) => c.notNull())
      /** The API token's hash, or '' for requests not made with a token. */
      .addColumn("token_hash", "text", (c) => c.notNull().defaultTo(""))
      .addColumn("counts", "jsonb", (c) => c.notNull())
      .addPrimaryKeyConstraint("metrics_samples_pkey", ["minute", "user_id", "token_hash"])
      .execute();
    await db.schema.createIndex("metrics_samples_user_minute_idx").on("metrics_samples")
      .columns(["user_id", "minute"]).execute();
  },
};
