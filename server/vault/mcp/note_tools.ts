/**
 * The vault's MCP tools. Each one is a request to the notes API itself (routes/notes.ts), run in
 * process as the caller of the MCP message: one implementation of paths, sizes, the version check,
 * shares and errors for both the web app and agents. A read-only key is offered the reading tools only.
 */
import { Hono } from "hono";
import { z } from "zod";
import { type Caller, refuseReadOnlyWrites } from "../../../internal/auth/mod.ts";
import type { CallToolResult, McpServer } from "../../../internal/mcp/sdk.ts";
import type { VaultEnv } from "../env.ts";
import { runAs } from "../live/actor.ts";
import { type NotesDeps, notesRoutes } from "../routes/notes.ts";

/** What the MCP route attaches to every message (`authInfo.extra`): who sent it. */
export interface ToolCaller {
  caller: Caller;
  requestId: string;
  /** Named in the live events of what the call changes (live/actor.ts). */
  agent?: { agentId?: string; agentName?: string };
}

export function authInfoFor(caller: Caller, requestId: string) {
  return {
    token: "",
    clientId: caller.userId,
    scopes: [caller.scope ?? "read-write"],
    extra: { caller, requestId },
  };
}

type Extra = { authInfo?: { extra?: Record<string, unknown> }; sessionId?: string };

/** The notes API with the caller of each call passed in, and read-only keys refused writes there too. */
export function notesApiFor(deps: NotesDeps) {
  const app = new Hono<VaultEnv & { Bindings: ToolCaller }>();
  app.use(async (c, next) => {
    c.set("caller", c.env.caller);
    c.set("requestId", c.env.requestId);
    await runAs(c.env.agent ?? {}, next);
  });
  app.use(refuseReadOnlyWrites());
  app.route("/", notesRoutes(deps));
  return app;
}

export type NotesApi = ReturnType<typeof notesApiFor>;

const path = z.string().min(1).max(500).describe('a note path such as "Projects/Plan.md"');
const owner = z.string().min(1).max(128).optional().describe(
  "the owner's user id, for a note another user shared with you (see list_notes)",
);

function query(params: Record<string, string | number | undefined>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined) q.set(k, String(v));
  const s = q.toString();
  return s ? `?${s}` : "";
}

interface ToolSpec<S extends z.ZodRawShape> {
  name: string;
  description: string;
  write: boolean;
  input: S;
  /** The notes API request this call makes, and how its answer becomes the tool's result. */
  request(args: z.infer<z.ZodObject<S>>): { method: string; url: string; body?: unknown };
  shape?: (answer: Record<string, unknown>, args: z.infer<z.ZodObject<S>>) => object;
}

const tool = <S extends z.ZodRawShape>(spec: ToolSpec<S>) => spec;

type TreeEntry = { path: string; kind: string; size?: number; mtime: string };
type Tree = {
  entries: TreeEntry[];
  shared: { ownerId: string; ownerName: string; path: string; permission: string; entries: TreeEntry[] }[];
};
const inFolder = (folder: string | undefined) => (e: TreeEntry) =>
  !folder || e.path.startsWith(folder.replace(/\/*$/, "/"));

export const TOOLS = [
  tool({
    name: "list_notes",
    description: "List your notes (path, size, modified time), optionally under one folder, and the notes " +
      "other users shared with you (grouped by owner).",
    write: false,
    input: {
      folder: z.string().max(500).optional().describe('only notes under this folder, e.g. "Projects"'),
    },
    request: () => ({ method: "GET", url: "/api/notes/tree" }),
    shape: (a, { folder }) => {
      const tree = a as unknown as Tree;
      const notes = (es: TreeEntry[]) => es.filter((e) => e.kind !== "folder").filter(inFolder(folder));
      return {
        notes: notes(tree.entries),
        shared: tree.shared.map((s) => ({ ...s, entries: notes(s.entries) })),
      };
    },
  }),
  tool({
    name: "read_note",
    description: "Read one note: its content and its version (pass the version to update_note).",
    write: false,
    input: { path, owner },
    request: (a) => ({ method: "GET", url: `/api/notes${query(a)}` }),
  }),
  tool({
    name: "create_note",
    description: "Create a new note (Markdown, up to 1 MB). Refused when a note already exists at the path.",
    write: true,
    input: { path, content: z.string().describe("the Markdown content"), owner },
    request: (a) => ({ method: "POST", url: "/api/notes", body: a }),
  }),
  tool({
    name: "update_note",
    description: "Replace a note's content. `version` is the one read_note returned: when the note changed " +
      "since, nothing is written and the error names the current version (read again and merge).",
    write: true,
    input: {
      path,
      content: z.string().describe("the whole new Markdown content"),
      version: z.string().min(1).max(64).describe("the version read_note returned"),
      owner,
    },
    request: ({ version, ...a }) => ({
      method: "PUT",
      url: "/api/notes",
      body: { ...a, ifVersion: version },
    }),
  }),
  tool({
    name: "delete_note",
    description: "Move one of your notes to the trash (the user can restore it).",
    write: true,
    input: { path },
    request: (a) => ({ method: "DELETE", url: `/api/notes${query(a)}` }),
  }),
  tool({
    name: "search",
    description: 'Full-text search over your notes and those shared with you. Syntax: words, "phrases", ' +
      "prefix*, OR, -exclusion, tag:x or #x, folder:x, path:x. Snippets mark matches with <mark>.",
    write: false,
    input: {
      query: z.string().min(1).max(1000),
      limit: z.number().int().min(1).max(100).optional(),
      offset: z.number().int().min(0).max(10_000).optional(),
    },
    request: ({ query: q, limit, offset }) => ({
      method: "GET",
      url: `/api/search${query({ q, limit, offset })}`,
    }),
  }),
  tool({
    name: "get_backlinks",
    description: "The notes that link to a note.",
    write: false,
    input: { path, owner },
    request: (a) => ({ method: "GET", url: `/api/backlinks${query(a)}` }),
  }),
  tool({
    name: "get_graph",
    description:
      "The link graph (nodes and edges): the whole vault, or the notes within `depth` links of `center`.",
    write: false,
    input: { center: path.optional(), depth: z.number().int().min(1).max(5).optional(), owner },
    request: (a) => ({ method: "GET", url: `/api/graph${query(a)}` }),
  }),
  tool({
    name: "list_tags",
    description: "Your tags and the notes under each.",
    write: false,
    input: {},
    request: () => ({ method: "GET", url: "/api/tags" }),
  }),
  tool({
    name: "list_folders",
    description: "Your folders, and the folders inside what other users shared with you.",
    write: false,
    input: {},
    request: () => ({ method: "GET", url: "/api/notes/tree?stats=false" }),
    shape: (a) => {
      const tree = a as unknown as Tree;
      const folders = (es: TreeEntry[]) => es.filter((e) => e.kind === "folder").map((e) => e.path);
      return {
        folders: folders(tree.entries),
        shared: tree.shared.map((s) => ({ ownerId: s.ownerId, path: s.path, folders: folders(s.entries) })),
      };
    },
  }),
  tool({
    name: "get_daily_note",
    description:
      "Today's daily note (or `date`'s), created from the daily template when it does not exist yet.",
    write: true,
    input: { date: z.string().regex(/^\d{4}-\d{2}-\d{2}$/).optional().describe("YYYY-MM-DD; default today") },
    request: (a) => ({ method: "POST", url: "/api/daily", body: a }),
  }),
  tool({
    name: "list_templates",
    description: "The template notes (in Templates/ unless `folder` says otherwise).",
    write: false,
    input: { folder: path.optional() },
    request: (a) => ({ method: "GET", url: `/api/templates${query(a)}` }),
  }),
  tool({
    name: "create_note_from_template",
    description: "Create a note at `path` from a template, filling in {{title}}, {{date}} and {{time}}.",
    write: true,
    input: {
      template: path,
      path,
      timeZone: z.string().max(64).optional().describe("IANA zone for {{date}}"),
    },
    request: (a) => ({ method: "POST", url: "/api/notes/from-template", body: a }),
  }),
];

export const TOOL_NAMES = TOOLS.map((t) => t.name);
export const READ_TOOL_NAMES = TOOLS.filter((t) => !t.write).map((t) => t.name);

/** The notes API's answer as a tool result; a refusal is a tool error carrying its status and body. */
async function resultOf(
  res: Response,
  shape?: (a: Record<string, unknown>) => object,
): Promise<CallToolResult> {
  const text = await res.text();
  let body: Record<string, unknown> = {};
  try {
    body = text ? JSON.parse(text) : {};
  } catch {
    body = { error: text };
  }
  if (!res.ok) {
    const detail = body.issues ? `: ${JSON.stringify(body.issues)}` : "";
    return {
      isError: true,
      content: [{ type: "text", text: `${res.status} ${String(body.error ?? "refused")}${detail}` }],
      structuredContent: { status: res.status, ...body },
    };
  }
  const value = shape ? shape(body) : body;
  return {
    content: [{ type: "text", text: JSON.stringify(value, null, 2) }],
    structuredContent: value as Record<string, unknown>,
  };
}

/** Registers the tools the key may use: all of them, or the reading ones for a read-only key. */
export function registerNoteTools(server: McpServer, api: NotesApi, scope: "read" | "read-write") {
  for (const t of TOOLS) {
    if (t.write && scope === "read") continue;
    const spec = t as ToolSpec<z.ZodRawShape>;
    server.registerTool(
      spec.name,
      {
        description: spec.description,
        inputSchema: spec.input,
        // MCP's hint that a tool changes nothing: hosts may skip asking, and vault-mcp may retry it.
        annotations: { readOnlyHint: !spec.write },
      },
      async (args: Record<string, unknown>, extra: Extra) => {
        const who = extra.authInfo?.extra as ToolCaller | undefined;
        if (!who?.caller) return { isError: true, content: [{ type: "text", text: "401 unauthorized" }] };
        const r = spec.request(args as never);
        const init: RequestInit = { method: r.method };
        if (r.body !== undefined) {
          init.body = JSON.stringify(r.body);
          init.headers = { "content-type": "application/json" };
        }
        // The agent is the MCP session, named by the host's clientInfo.
        const agent = { agentId: extra.sessionId, agentName: server.server.getClientVersion()?.name };
        const res = await api.request(`http://vault.internal${r.url}`, init, { ...who, agent });
        return resultOf(res, spec.shape && ((a) => spec.shape!(a, args as never)));
      },
    );
  }
}
