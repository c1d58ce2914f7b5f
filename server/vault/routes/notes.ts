/**
 * The notes API (every route: a session or an API key; `read` keys only read). Note paths travel in
 * the query (`?path=`) or the body, never in the URL path, so every spelling reaches the notes
 * library's path check. `owner` (a user id) reads or writes a note another user shared with the
 * caller; the share is checked here, on every request.
 *   GET    /api/notes/tree                 the caller's files and folders, and what others shared
 *   GET    /api/notes?path=                one note or canvas with its version
 *   POST   /api/notes                      create {path, content}
 *   PUT    /api/notes                      update {path, content, ifVersion?}: stale -> 409
 *   DELETE /api/notes?path=                to the trash
 *   POST   /api/notes/move                 rename or move a file or folder; links follow
 *   GET    /api/trash, POST /api/trash/:id/restore, DELETE /api/trash/:id
 *   POST   /api/folders, DELETE /api/folders?path=
 *   GET    /api/tags, /api/backlinks?path=, /api/links?path=, /api/links/unresolved, /api/graph
 *   POST   /api/daily, GET /api/templates, POST /api/notes/from-template
 *   GET    /api/canvas?path=               a canvas, parsed
 *   PUT    /api/attachments?path=          raw bytes with their Content-Type; GET serves them
 *   GET    /api/search?q=                  docs/vault-search.md's query syntax; malformed -> 400
 */
import { Hono } from "hono";
import type { Kysely } from "kysely";
import { z } from "zod";
import { callerOf } from "../../../internal/auth/mod.ts";
import type { VaultEnv } from "../env.ts";
import type { IndexSync } from "../indexing/index_sync.ts";
import {
  canvasSchema,
  createFromTemplate,
  dailyNotesConfigSchema,
  listTemplates,
  normalizeNotePath,
  type NoteStore,
  openDailyNote,
} from "../notes/mod.ts";
import { defineRoute, idParams, mountRoute, recordId, type RouteSpec } from "../openapi/route_spec.ts";
import {
  backlinks,
  GRAPH_LIMITS,
  linkGraph,
  noteTags,
  outgoingLinks,
  SEARCH_LIMITS,
  searchNotes,
  unresolvedLinks,
} from "../search/mod.ts";
import { covers, permissionFor, sharesReceived } from "../sharing/shares.ts";
import type { Permission, VaultDatabase } from "../store/db.ts";
import type { RouteHandler } from "../../../internal/openapi/mod.ts";
import { noteErrorBody, refusal, withNoteErrors } from "./note_errors.ts";

export interface NotesDeps {
  db: Kysely<VaultDatabase>;
  store: NoteStore;
  sync: IndexSync;
}

const path = z.string().min(1).max(4096).describe("a note path such as `Projects/Plan.md`");
const owner = recordId.optional()
  .describe("the id of the user who owns the note, when another user shared it with the caller");
const pathQuery = z.object({ path, owner });
const meta = z.object({ path: z.string(), version: z.string(), size: z.number(), mtime: z.string() });
const note = meta.extend({ content: z.string(), owner: z.string() });
const treeEntry = z.object({
  path: z.string(),
  kind: z.enum(["folder", "note", "canvas", "attachment", "file"]),
  size: z.number().optional(),
  mtime: z.string(),
});
const sharedTree = z.object({
  ownerId: z.string(),
  ownerName: z.string(),
  ownerEmail: z.string(),
  path: z.string().describe("what was shared: a note, or a folder ending in `/`"),
  permission: z.enum(["read", "read-write"]),
  entries: z.array(treeEntry),
});
const trashEntry = z.object({ id: z.string(), path: z.string(), deletedAt: z.string(), size: z.number() });
const noteErrors = { description: "refused: `code` says why", schema: noteErrorBody };
const ok = z.object({ ok: z.literal(true) });

function spec<const S extends Omit<RouteSpec, "tag" | "access"> & Partial<Pick<RouteSpec, "tag">>>(s: S) {
  return defineRoute({ tag: "notes", access: "caller", ...s } as S & { tag: string; access: "caller" });
}

export const notesApi = {
  tree: spec({
    method: "get",
    path: "/api/notes/tree",
    operationId: "noteTree",
    summary: "Every folder and file of the caller's vault, and what other users shared with the caller",
    query: z.object({ stats: z.enum(["true", "false"]).optional() }),
    responses: {
      200: {
        description: "sorted by path; `shared` groups other users' notes under their owner",
        schema: z.object({ entries: z.array(treeEntry), shared: z.array(sharedTree) }),
      },
    },
  }),
  read: spec({
    method: "get",
    path: "/api/notes",
    operationId: "readNote",
    summary: "A note or canvas with its version",
    query: pathQuery,
    responses: { 200: { description: "the note", schema: note }, 404: noteErrors },
    errors: [404],
  }),
  create: spec({
    method: "post",
    path: "/api/notes",
    operationId: "createNote",
    summary: "Create a note or canvas (1 MiB at most)",
    body: z.strictObject({ path, content: z.string(), owner }),
    responses: { 201: { description: "created", schema: meta }, 409: noteErrors, 413: noteErrors },
    errors: [404, 409, 413],
  }),
  update: spec({
    method: "put",
    path: "/api/notes",
    operationId: "updateNote",
    summary: "Replace a note's content; with `ifVersion`, only if nobody changed it since",
    description: "A stale `ifVersion` answers 409 with `currentVersion`; nothing is written.",
    body: z.strictObject({ path, content: z.string(), ifVersion: z.string().max(64).optional(), owner }),
    responses: { 200: { description: "written", schema: meta }, 409: noteErrors, 413: noteErrors },
    errors: [404, 409, 413],
  }),
  remove: spec({
    method: "delete",
    path: "/api/notes",
    operationId: "deleteNote",
    summary: "Move a file to the trash",
    query: z.object({ path }),
    responses: { 200: { description: "the trash entry to restore it with", schema: trashEntry } },
    errors: [404],
  }),
  move: spec({
    method: "post",
    path: "/api/notes/move",
    operationId: "moveNote",
    summary: "Rename or move a file or folder; links to it in other notes follow",
    body: z.strictObject({ from: path, to: path }),
    responses: {
      200: {
        description: "what moved and which notes were rewritten",
        schema: z.object({
          from: z.string(),
          to: z.string(),
          moved: z.array(z.object({ from: z.string(), to: z.string() })),
          rewritten: z.array(z.string()),
        }),
      },
      409: noteErrors,
    },
    errors: [404, 409],
  }),
  trash: spec({
    method: "get",
    path: "/api/trash",
    operationId: "listTrash",
    summary: "Deleted files that can be restored",
    responses: { 200: { description: "newest first", schema: z.object({ entries: z.array(trashEntry) }) } },
  }),
  restore: spec({
    method: "post",
    path: "/api/trash/:id/restore",
    operationId: "restoreTrash",
    summary: "Put a deleted file back where it was",
    params: idParams,
    responses: { 200: { description: "restored", schema: meta }, 409: noteErrors },
    errors: [404, 409],
  }),
  purge: spec({
    method: "delete",
    path: "/api/trash/:id",
    operationId: "purgeTrash",
    summary: "Delete a trashed file for good",
    params: idParams,
    responses: { 204: { description: "gone" } },
    errors: [404],
  }),
  createFolder: spec({
    method: "post",
    path: "/api/folders",
    operationId: "createFolder",
    summary: "Create a folder",
    body: z.strictObject({ path }),
    responses: { 201: { description: "created", schema: ok } },
    errors: [409],
  }),
  deleteFolder: spec({
    method: "delete",
    path: "/api/folders",
    operationId: "deleteFolder",
    summary: "Delete an empty folder",
    query: z.object({ path }),
    responses: { 204: { description: "deleted" } },
    errors: [404, 409],
  }),
  tags: spec({
    method: "get",
    path: "/api/tags",
    operationId: "listTags",
    summary: "The caller's tags and the notes under each",
    responses: {
      200: {
        description: "sorted by tag",
        schema: z.object({ tags: z.array(z.object({ tag: z.string(), notes: z.array(z.string()) })) }),
      },
    },
  }),
  backlinks: spec({
    method: "get",
    path: "/api/backlinks",
    operationId: "backlinks",
    summary: "The notes that link to a note",
    query: pathQuery,
    responses: {
      200: {
        description: "linking notes",
        schema: z.object({
          backlinks: z.array(z.object({ path: z.string(), title: z.string(), kind: z.string() })),
        }),
      },
    },
    errors: [404],
  }),
  links: spec({
    method: "get",
    path: "/api/links",
    operationId: "outgoingLinks",
    summary: "The links written in a note: the file each resolves to, or its target as written",
    query: pathQuery,
    responses: {
      200: {
        description: "by target; `exists: false` for an unresolved link",
        schema: z.object({
          links: z.array(z.object({ target: z.string(), kind: z.string(), exists: z.boolean() })),
        }),
      },
    },
    errors: [404],
  }),
  unresolved: spec({
    method: "get",
    path: "/api/links/unresolved",
    operationId: "unresolvedLinks",
    summary: "Links of the caller's notes that point to no file (yet)",
    description: "As Obsidian's unresolved links: each resolves as soon as a file it names appears.",
    responses: {
      200: {
        description: "by target, then the note it is written in",
        schema: z.object({
          links: z.array(
            z.object({
              source: z.string().describe("the note the link is written in"),
              target: z.string().describe("as written (a Markdown link: resolved against its note's folder)"),
              kind: z.string(),
            }),
          ),
        }),
      },
    },
  }),
  graph: spec({
    method: "get",
    path: "/api/graph",
    operationId: "linkGraph",
    summary: "The link graph: the whole vault, or the notes within `depth` steps of `center`",
    description: "With `owner`, the graph of another user's notes, cut to what they shared with the caller.",
    query: z.object({
      owner,
      center: path.optional(),
      depth: z.coerce.number().int().min(1).max(GRAPH_LIMITS.maxDepth).optional(),
    }),
    responses: {
      200: {
        description: "nodes (`exists: false` for dangling targets) and edges",
        schema: z.object({
          nodes: z.array(
            z.object({ path: z.string(), title: z.string(), tags: z.array(z.string()), exists: z.boolean() }),
          ),
          edges: z.array(z.object({ source: z.string(), target: z.string(), kind: z.string() })),
          truncated: z.boolean(),
        }),
      },
    },
  }),
  daily: spec({
    method: "post",
    path: "/api/daily",
    operationId: "openDailyNote",
    summary: "Today's (or `date`'s) daily note, created from the template when missing",
    body: dailyNotesConfigSchema.extend({
      date: z.string().regex(/^\d{4}-\d{2}-\d{2}$/).optional().describe("YYYY-MM-DD; default: today"),
    }).strict(),
    responses: {
      200: {
        description: "the note and whether it was created",
        schema: z.object({ note, created: z.boolean() }),
      },
    },
    errors: [404],
  }),
  templates: spec({
    method: "get",
    path: "/api/templates",
    operationId: "listTemplates",
    summary: "The template notes (in `Templates/` unless `folder` says otherwise)",
    query: z.object({ folder: path.optional() }),
    responses: { 200: { description: "paths", schema: z.object({ templates: z.array(z.string()) }) } },
  }),
  fromTemplate: spec({
    method: "post",
    path: "/api/notes/from-template",
    operationId: "createFromTemplate",
    summary: "Create a note from a template ({{title}}, {{date}}, {{time}} filled in)",
    body: z.strictObject({ template: path, path, timeZone: z.string().max(64).optional() }),
    responses: { 201: { description: "created", schema: meta } },
    errors: [404, 409],
  }),
  canvas: spec({
    method: "get",
    path: "/api/canvas",
    operationId: "readCanvas",
    summary: "A canvas (JSON Canvas 1.0), parsed; write it with PUT /api/notes",
    query: pathQuery,
    responses: {
      200: { description: "the canvas", schema: meta.extend({ canvas: z.looseObject({}) }) },
    },
    errors: [404],
  }),
  putAttachment: spec({
    method: "put",
    path: "/api/attachments",
    operationId: "putAttachment",
    summary: "Store an image or PDF (PNG, JPEG, GIF, WebP, SVG, PDF)",
    description:
      "The body is the file; Content-Type, the extension and the bytes must agree (415 otherwise).",
    query: z.object({ path, overwrite: z.enum(["true", "false"]).optional() }),
    rawBody: { description: "the file's bytes", contentType: "application/octet-stream" },
    responses: {
      201: {
        description: "stored",
        schema: z.object({ path: z.string(), type: z.string(), size: z.number(), version: z.string() }),
      },
      415: noteErrors,
    },
    errors: [409, 413, 415],
  }),
  getAttachment: spec({
    method: "get",
    path: "/api/attachments",
    operationId: "getAttachment",
    summary: "Serve an attachment (SVG with `script-src 'none'`)",
    query: pathQuery,
    responses: { 200: { description: "the file", contentType: "application/octet-stream" }, 415: noteErrors },
    errors: [404],
  }),
  search: spec({
    method: "get",
    path: "/api/search",
    operationId: "searchNotes",
    summary: "Search the caller's notes and the notes shared with them",
    description: 'Query syntax: words, "phrases", prefix*, OR, -exclusion, tag:, #tag, folder:, path: ' +
      "(docs/vault-search.md). A malformed query answers 400 `invalid_query` with its position.",
    query: z.object({
      q: z.string().max(1000),
      limit: z.coerce.number().int().min(1).max(SEARCH_LIMITS.maxLimit).optional(),
      offset: z.coerce.number().int().min(0).max(SEARCH_LIMITS.maxOffset).optional(),
    }),
    responses: {
      200: {
        description: "one page of hits, best first; `snippet` is HTML with matches in <mark>",
        schema: z.object({
          total: z.number(),
          totalCapped: z.boolean(),
          offset: z.number(),
          limit: z.number(),
          hits: z.array(z.object({
            ownerId: z.string(),
            path: z.string(),
            title: z.string(),
            tags: z.array(z.string()),
            mtime: z.string(),
            score: z.number(),
            snippet: z.string(),
          })),
        }),
      },
      400: noteErrors,
    },
  }),
};

const iso = <T extends { mtime: Date }>(m: T) => ({ ...m, mtime: m.mtime.toISOString() });

export function notesRoutes({ db, store, sync }: NotesDeps): Hono<VaultEnv> {
  const app = new Hono<VaultEnv>();
  const mount = <S extends RouteSpec>(s: S, h: RouteHandler<VaultEnv, S>) =>
    mountRoute(app, s, withNoteErrors(h));

  /**
   * Whose files a request works on: the caller's own, or `owner`'s when a share covering the path
   * gives the caller `need`. No share: 404 as if there were no such note (nothing is revealed).
   */
  async function target(userId: string, ownerId: string | undefined, rawPath: string, need: Permission) {
    if (!ownerId || ownerId === userId) return userId;
    const rel = normalizeNotePath(rawPath);
    const has = await permissionFor(db, userId, ownerId, rel);
    if (!has) throw refusal(404, "not_found", `${rel} not found`);
    if (need === "read-write" && has !== "read-write") {
      throw refusal(403, "forbidden", `${rel} is shared with you read-only`);
    }
    return ownerId;
  }

  mount(notesApi.tree, async (c, { query }) => {
    const { userId } = callerOf(c);
    const stats = query.stats !== "false";
    // The caller's own listing comes as JSON already (notes/tree_cache.ts): 10,000 entries were 10,000
    // objects and dates made and serialised on every request.
    const entries = stats
      ? await store.treeJson(userId)
      : JSON.stringify((await store.tree(userId, { stats })).map(iso));
    const shared = [];
    for (const s of await sharesReceived(db, userId)) {
      const theirs = (await store.tree(s.ownerId, { stats })).filter((e) => covers(s.path, e.path));
      shared.push({
        ownerId: s.ownerId,
        ownerName: s.ownerName,
        ownerEmail: s.ownerEmail,
        path: s.path,
        permission: s.permission,
        entries: theirs.map(iso),
      });
    }
    return c.body(`{"entries":${entries},"shared":${JSON.stringify(shared)}}`, 200, {
      "content-type": "application/json",
    });
  });

  mount(notesApi.read, async (c, { query }) => {
    const who = await target(callerOf(c).userId, query.owner, query.path, "read");
    return c.json({ ...iso(await store.read(who, query.path)), owner: who });
  });

  mount(notesApi.create, async (c, { body }) => {
    const who = await target(callerOf(c).userId, body.owner, body.path, "read-write");
    return c.json(iso(await store.create(who, body.path, body.content)), 201);
  });

  mount(notesApi.update, async (c, { body }) => {
    const who = await target(callerOf(c).userId, body.owner, body.path, "read-write");
    return c.json(iso(await store.update(who, body.path, body.content, { ifVersion: body.ifVersion })));
  });

  mount(notesApi.remove, async (c, { query }) => {
    const e = await store.delete(callerOf(c).userId, query.path);
    return c.json({ ...e, deletedAt: e.deletedAt.toISOString() });
  });

  mount(
    notesApi.move,
    async (c, { body }) => c.json(await store.rename(callerOf(c).userId, body.from, body.to)),
  );

  trashAndFolderRoutes(mount, store);
  linkRoutes(mount, { db, sync }, target);

  mount(notesApi.daily, async (c, { body }) => {
    const { date, ...config } = body;
    const when = date ? new Date(`${date}T12:00:00Z`) : new Date();
    const opened = await openDailyNote(
      store,
      callerOf(c).userId,
      when,
      date ? { ...config, timeZone: "UTC" } : config,
    );
    return c.json({ note: { ...iso(opened.note), owner: callerOf(c).userId }, created: opened.created });
  });

  mount(
    notesApi.templates,
    async (c, { query }) =>
      c.json({ templates: await listTemplates(store, callerOf(c).userId, query.folder) }),
  );

  mount(notesApi.fromTemplate, async (c, { body }) =>
    c.json(
      iso(
        await createFromTemplate(store, callerOf(c).userId, body.template, body.path, {
          timeZone: body.timeZone,
        }),
      ),
      201,
    ));

  mount(notesApi.canvas, async (c, { query }) => {
    const who = await target(callerOf(c).userId, query.owner, query.path, "read");
    const read = await store.readCanvas(who, query.path);
    return c.json(iso({ ...read, canvas: canvasSchema.parse(read.canvas) }));
  });

  mount(notesApi.putAttachment, async (c, { query }) => {
    const bytes = new Uint8Array(await c.req.arrayBuffer());
    const type = (c.req.header("content-type") ?? "").split(";")[0]!.trim();
    const stored = await store.putAttachment(callerOf(c).userId, query.path, bytes, type, {
      overwrite: query.overwrite === "true",
    });
    return c.json(stored, 201);
  });

  mount(notesApi.getAttachment, async (c, { query }) => {
    const who = await target(callerOf(c).userId, query.owner, query.path, "read");
    const a = await store.readAttachment(who, query.path);
    return new Response(a.bytes as Uint8Array<ArrayBuffer>, { status: 200, headers: a.headers });
  });

  mount(notesApi.search, async (c, { query }) => {
    const { userId } = callerOf(c);
    const shares = await sharesReceived(db, userId);
    await sync.settled(userId);
    for (const s of new Set(shares.map((s) => s.ownerId))) await sync.settled(s);
    const page = await searchNotes(
      db,
      {
        userId,
        shared: shares.map((s) => ({ ownerId: s.ownerId, path: s.path })),
      },
      query.q,
      { limit: query.limit, offset: query.offset },
    );
    return c.json({
      ...page,
      hits: page.hits.map((h) => ({ ...h, mtime: h.mtime.toISOString() })),
    });
  });

  return app;
}

/** How notesRoutes mounts a route: its errors become the notes' structured refusals. */
type Mount = <S extends RouteSpec>(s: S, h: RouteHandler<VaultEnv, S>) => void;
/** Whose files a request works on (notesRoutes' `target`). */
type Target = (
  userId: string,
  ownerId: string | undefined,
  rawPath: string,
  need: Permission,
) => Promise<string>;

/** The trash, folders and tags of the caller's own notes. */
function trashAndFolderRoutes(mount: Mount, store: NotesDeps["store"]): void {
  mount(notesApi.trash, async (c) => {
    const entries = await store.listTrash(callerOf(c).userId);
    return c.json({ entries: entries.map((e) => ({ ...e, deletedAt: e.deletedAt.toISOString() })) });
  });

  mount(
    notesApi.restore,
    async (c, { params }) => c.json(iso(await store.restore(callerOf(c).userId, params.id))),
  );

  mount(notesApi.purge, async (c, { params }) => {
    const { userId } = callerOf(c);
    if (!(await store.listTrash(userId)).some((e) => e.id === params.id)) {
      throw refusal(404, "not_found", "no such trash entry");
    }
    await store.purgeTrash(userId, params.id);
    return c.body(null, 204);
  });

  mount(notesApi.createFolder, async (c, { body }) => {
    await store.createFolder(callerOf(c).userId, body.path);
    return c.json({ ok: true as const }, 201);
  });

  mount(notesApi.deleteFolder, async (c, { query }) => {
    await store.deleteFolder(callerOf(c).userId, query.path);
    return c.body(null, 204);
  });
}

/**
 * What the search index knows of notes: tags, backlinks, outgoing and unresolved links and the graph.
 * Of shared notes, only what is shared shows.
 */
function linkRoutes(mount: Mount, { db, sync }: Pick<NotesDeps, "db" | "sync">, target: Target): void {
  mount(notesApi.tags, async (c) => {
    const { userId } = callerOf(c);
    await sync.settled(userId);
    return c.json({ tags: await noteTags(db, userId) });
  });
  mount(notesApi.backlinks, async (c, { query }) => {
    const who = await target(callerOf(c).userId, query.owner, query.path, "read");
    await sync.settled(who);
    const rel = normalizeNotePath(query.path);
    const found = await backlinks(db, who, rel);
    const visible = who === callerOf(c).userId ? found : (await Promise.all(
      found.map(async (b) => (await permissionFor(db, callerOf(c).userId, who, b.path)) ? b : undefined),
    )).filter((b) => b !== undefined);
    return c.json({ backlinks: visible });
  });

  mount(notesApi.links, async (c, { query }) => {
    const who = await target(callerOf(c).userId, query.owner, query.path, "read");
    await sync.settled(who);
    const links = await outgoingLinks(db, who, normalizeNotePath(query.path));
    if (who === callerOf(c).userId) return c.json({ links });
    // Another user's note: what its links point to is theirs to show only where shared too.
    const shown = await Promise.all(
      links.map(async (l) => (await permissionFor(db, callerOf(c).userId, who, l.target)) ? l : undefined),
    );
    return c.json({ links: shown.filter((l) => l !== undefined) });
  });

  mount(notesApi.unresolved, async (c) => {
    const { userId } = callerOf(c);
    await sync.settled(userId);
    return c.json({ links: await unresolvedLinks(db, userId) });
  });

  mount(notesApi.graph, async (c, { query }) => {
    const { userId } = callerOf(c);
    const center = query.center === undefined ? undefined : normalizeNotePath(query.center);
    const who = center === undefined && query.owner && query.owner !== userId
      ? query.owner
      : await target(userId, query.owner, center ?? "", "read");
    await sync.settled(who);
    const graph = await linkGraph(db, who, { center, depth: query.depth });
    if (who === userId) return c.json(graph);
    const shares = (await sharesReceived(db, userId)).filter((s) => s.ownerId === who);
    const visible = (p: string) => shares.some((s) => covers(s.path, p));
    return c.json({
      ...graph,
      nodes: graph.nodes.filter((n) => visible(n.path)),
      edges: graph.edges.filter((e) => visible(e.source) && visible(e.target)),
    });
  });
}
