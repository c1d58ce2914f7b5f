/**
 * Where collaborative documents persist (tables of migration 0005): the update log, appended as
 * updates arrive, and the snapshot that compaction writes. Rows are keyed by the note's owner and path,
 * so a document loads the same on every replica sharing the database.
 */
import type { Kysely } from "kysely";
import * as Y from "yjs";
import type { VaultDatabase } from "../store/db.ts";

export interface StoredDoc {
  /** The snapshot's state, then every logged update after it, in order. */
  updates: Uint8Array[];
  /** The note text the snapshot last wrote to or read from the file (undefined: no snapshot). */
  fileText: string | undefined;
}

export class UpdateLog {
  constructor(private readonly db: Kysely<VaultDatabase>) {}

  async load(ownerId: string, path: string): Promise<StoredDoc> {
    const snapshot = await this.db.selectFrom("collab_snapshots").select(["state", "file_text"])
      .where("owner_id", "=", ownerId).where("path", "=", path).executeTakeFirst();
    const rows = await this.db.selectFrom("collab_updates").select("update")
      .where("owner_id", "=", ownerId).where("path", "=", path).orderBy("id").execute();
    return {
      updates: [...(snapshot ? [snapshot.state] : []), ...rows.map((r) => r.update)],
      fileText: snapshot?.file_text,
    };
  }

  /** Appends updates in one statement. */
  async append(ownerId: string, path: string, updates: Uint8Array[]): Promise<void> {
    await this.db.insertInto("collab_updates")
      .values(updates.map((update) => ({ owner_id: ownerId, path, update }))).execute();
  }

  /** Stores a note's first snapshot unless a replica stored one first; returns whether this one did. */
  async seed(ownerId: string, path: string, state: Uint8Array, fileText: string): Promise<boolean> {
    const rows = await this.db.insertInto("collab_snapshots")
      .values({ owner_id: ownerId, path, state, file_text: fileText })
      .onConflict((oc) => oc.columns(["owner_id", "path"]).doNothing())
      .returning("path").execute();
    return rows.length > 0;
  }

  /**
   * Compaction: folds the log into the snapshot and deletes the rows folded, in one transaction that
   * locks the snapshot row. It works from the database alone (every update any replica applied is in
   * the log), so a row another replica appended is folded in, never dropped.
   */
  async compact(ownerId: string, path: string, fileText: string): Promise<void> {
    await this.db.transaction().execute(async (tx) => {
      const snapshot = await tx.selectFrom("collab_snapshots").select("state")
        .where("owner_id", "=", ownerId).where("path", "=", path).forUpdate().executeTakeFirst();
      if (!snapshot) return; // forgotten meanwhile (the note was deleted)
      const rows = await tx.selectFrom("collab_updates").select(["id", "update"])
        .where("owner_id", "=", ownerId).where("path", "=", path).orderBy("id").execute();
      const doc = new Y.Doc();
      Y.applyUpdate(doc, snapshot.state);
      for (const r of rows) Y.applyUpdate(doc, r.update);
      const state = Y.encodeStateAsUpdate(doc);
      doc.destroy();
      await tx.updateTable("collab_snapshots")
        .set({ state, file_text: fileText, updated_at: new Date() })
        .where("owner_id", "=", ownerId).where("path", "=", path).execute();
      if (rows.length) {
        await tx.deleteFrom("collab_updates").where("owner_id", "=", ownerId).where("path", "=", path)
          .where("id", "<=", rows.at(-1)!.id).execute();
      }
    });
  }

  /** Forgets a note's document (the note was deleted, or renamed away from this path). */
  async forget(ownerId: string, path: string): Promise<void> {
    await this.db.deleteFrom("collab_updates").where("owner_id", "=", ownerId).where("path", "=", path)
      .execute();
    await this.db.deleteFrom("collab_snapshots").where("owner_id", "=", ownerId).where("path", "=", path)
      .execute();
  }
}
