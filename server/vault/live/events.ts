/**
 * The live events of the per-user channel (/ws/vault): a union on `kind` with the reference's
 * payloads (notes/vault.md section 2). Every event names the owner of the notes it is about and
 * who made the change (`clientId` of a web app tab, or `agentId`/`agentName` of an MCP agent;
 * null when unknown, e.g. an edit on disk).
 */
import { stat } from "node:fs/promises";
import { dirname, join } from "node:path";
import type { NoteChange, NoteStore } from "../notes/mod.ts";
import type { Actor } from "./actor.ts";

type Change =
  | { kind: "note.created" | "note.updated"; path: string; updatedAt: string; size: number }
  | { kind: "note.deleted"; path: string }
  | { kind: "note.renamed" | "note.moved"; from: string; to: string; updatedAt: string; size: number }
  | { kind: "folder.created" | "folder.deleted"; path: string }
  | { kind: "folder.renamed"; from: string; to: string }
  | { kind: "tag.added" | "tag.removed"; tag: string; path: string };

export type VaultEvent = Change & {
  ownerId: string;
  clientId: string | null;
  agentId: string | null;
  agentName: string | null;
};

/** The paths an event touches (for share checks). */
export const pathsOf = (e: VaultEvent): string[] => ("path" in e ? [e.path] : [e.from, e.to]);

async function statOf(store: NoteStore, userId: string, path: string) {
  try {
    const s = await stat(join(await store.userRoot(userId), path));
    return { updatedAt: s.mtime.toISOString(), size: s.size };
  } catch {
    return { updatedAt: new Date().toISOString(), size: 0 };
  }
}

export async function eventOf(store: NoteStore, change: NoteChange, actor: Actor): Promise<VaultEvent> {
  const who = {
    ownerId: change.userId,
    clientId: actor.clientId ?? null,
    agentId: actor.agentId ?? null,
    agentName: actor.agentName ?? null,
  };
  const { path } = change;
  if (change.folder) {
    if (change.kind === "renamed") {
      return { kind: "folder.renamed", from: change.from ?? path, to: path, ...who };
    }
    return { kind: change.kind === "deleted" ? "folder.deleted" : "folder.created", path, ...who };
  }
  if (change.kind === "deleted") return { kind: "note.deleted", path, ...who };
  const stats = await statOf(store, change.userId, path);
  if (change.kind === "renamed") {
    const from = change.from ?? path;
    const kind = dirname(from) === dirname(path) ? "note.renamed" : "note.moved";
    return { kind, from, to: path, ...stats, ...who };
  }
  return { kind: change.kind === "created" ? "note.created" : "note.updated", path, ...stats, ...who };
}
