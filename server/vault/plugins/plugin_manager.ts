/**
 * The vault's plugins: found in the plugins folder (one folder per plugin, named for its id, with a
 * manifest.json), enabled and configured through the admin API (state in the database), each enabled
 * plugin's server entry run in its own sandbox process (plugin_process.ts).
 *
 * Replicas on one PostgreSQL share the plugins folder and each run their own sandboxes; an enable or
 * disable through one is followed by the others within `followMs`.
 *
 * Lifecycle: installed → loaded (sandbox started) → active (activate(api) resolved) → deactivating
 * (disable asked) → unloaded, or error from any of them (bad manifest, activate threw, a call overran
 * its time, the sandbox its memory, or it exited). Enabling a plugin in error loads it afresh.
 *
 * The host API acts for the user of the vault call it runs under: a route handler for the caller of the
 * route, an event handler for the note's owner; api.notes is the notes API as that user (their notes
 * and what is shared with them, a read-only key's calls refused writes); outside a call (at activate,
 * in a timer) api.notes is refused. api.storage is the plugin's own key-value space: the plugin id is
 * the sandbox's, never an argument, so no plugin reaches another's rows.
 */
import { cp, readdir, stat } from "node:fs/promises";
import { isAbsolute, join, resolve } from "node:path";
import { type Kysely, sql } from "kysely";
import { Mutex } from "../../../internal/db/mod.ts";
import type { Caller } from "../../../internal/auth/mod.ts";
import type { Logger } from "../../../internal/log/mod.ts";
import { VERSION } from "../../../internal/version/version.ts";
import { currentActor } from "../live/actor.ts";
import type { NotesApi } from "../mcp/note_tools.ts";
import type { NoteChange } from "../notes/mod.ts";
import type { VaultDatabase } from "../store/db.ts";
import { ManifestError, type PluginManifest, readManifest, satisfiesMinVersion } from "./manifest.ts";
import { PluginProcess } from "./plugin_process.ts";
import type { PluginEvent, RouteAnswer, RouteRequest } from "./protocol.ts";
import { PluginStorage } from "./plugin_storage.ts";

export type PluginState = "installed" | "loaded" | "active" | "deactivating" | "unloaded" | "error";

export interface PluginRoute {
  method: string;
  path: string;
  name?: string;
  description?: string;
}

interface Plugin {
  id: string;
  dir: string;
  manifest: PluginManifest | undefined;
  state: PluginState;
  error: string | undefined;
  enabled: boolean;
  process: PluginProcess | undefined;
  routes: Map<string, PluginRoute>;
  events: Set<string>;
  /** The vault's calls in flight, by id: whom the host API acts for. */
  calls: Map<number, Caller>;
}

export interface PluginInfo {
  id: string;
  name: string | undefined;
  version: string | undefined;
  description: string | undefined;
  state: PluginState;
  error: string | undefined;
  enabled: boolean;
  server: boolean;
  client: boolean;
  settings: PluginManifest["settings"];
  values: Record<string, unknown>;
  routes: PluginRoute[];
}

export class PluginError extends Error {
  constructor(
    readonly status: 400 | 404 | 409 | 502 | 503 | 504,
    message: string,
    readonly issues?: unknown,
  ) {
    super(message);
  }
}

export interface PluginManagerOptions {
  db: Kysely<VaultDatabase>;
  dir: string;
  notes: NotesApi;
  log: Logger;
  timeoutMs: number;
  memoryMb: number;
  /**
   * Replicas on one PostgreSQL: how often to look for enables and disables made through another
   * (they share the plugins folder as they share the notes folder). Unset: one process, no polling.
   */
  followMs?: number;
}

const EVENT_OF: Record<NoteChange["kind"], PluginEvent> = {
  created: "note:afterSave",
  changed: "note:afterSave",
  deleted: "note:afterDelete",
  renamed: "note:afterRename",
};

/** A setting value's type in the manifest's terms ("string", "number", "boolean"), else "other". */
function jsonTypeOf(value: unknown): string {
  const t = typeof value;
  return t === "string" || t === "number" || t === "boolean" ? t : "other";
}

export class PluginManager {
  readonly #plugins = new Map<string, Plugin>();
  readonly #storage: PluginStorage;
  /** Lifecycle changes (enable, disable, following another replica) one at a time. */
  readonly #lifecycle = new Mutex();
  /** Plugin id -> the enable/disable generation this process has acted on. */
  readonly #seen = new Map<string, number>();
  #follow: ReturnType<typeof setInterval> | undefined;
  readonly #routeListeners = new Set<() => void>();

  constructor(private readonly o: PluginManagerOptions) {
    this.#storage = new PluginStorage(o.db);
  }

  get dir(): string {
    return this.o.dir;
  }

  /** Reads every plugin folder and loads the enabled ones. */
  async start(): Promise<void> {
    const names = await readdir(this.o.dir).catch(() => [] as string[]);
    const rows = await this.o.db.selectFrom("plugins").select(["id", "enabled", "generation"]).execute();
    const enabled = new Set(rows.filter((r) => r.enabled).map((r) => r.id));
    for (const r of rows) this.#seen.set(r.id, r.generation);
    for (const name of names.sort()) {
      if (name.startsWith(".") || !(await stat(join(this.o.dir, name))).isDirectory()) continue;
      const p = await this.#read(name);
      p.enabled = enabled.has(p.id);
      if (p.enabled && p.state === "installed") await this.#load(p);
    }
    if (this.o.followMs) {
      this.#follow = setInterval(() => {
        void this.#followReplicas().catch((err) => this.o.log.warn("plugins not followed", { err }));
      }, this.o.followMs);
      (this.#follow as { unref?: () => void }).unref?.();
    }
  }

  /** Acts on enables and disables made through other replicas (a generation not seen here). */
  async #followReplicas(): Promise<void> {
    const rows = await this.o.db.selectFrom("plugins").select(["id", "enabled", "generation"]).execute();
    for (const row of rows) {
      if (this.#seen.get(row.id) === row.generation) continue;
      await this.#locked(async () => {
        if (this.#seen.get(row.id) === row.generation) return;
        this.#seen.set(row.id, row.generation);
        const exists = (await stat(join(this.o.dir, row.id)).catch(() => undefined))?.isDirectory();
        if (!exists) return;
        const p = this.#plugins.get(row.id)?.manifest ? this.#plugins.get(row.id)! : await this.#read(row.id);
        p.enabled = row.enabled;
        this.o.log.info("plugin change from another replica", { plugin: p.id, enabled: row.enabled });
        if (!row.enabled) await this.#unload(p);
        else if (p.manifest) await this.#load(p);
      });
    }
  }

  async #locked<T>(run: () => Promise<T>): Promise<T> {
    const release = await this.#lifecycle.lock();
    try {
      return await run();
    } finally {
      release();
    }
  }

  async close(): Promise<void> {
    clearInterval(this.#follow);
    await Promise.all([...this.#plugins.values()].map((p) => this.#unload(p)));
  }

  list(): Promise<PluginInfo[]> {
    const sorted = [...this.#plugins.values()].sort((a, b) => a.id.localeCompare(b.id));
    return Promise.all(sorted.map((p) => this.#info(p)));
  }

  async get(id: string): Promise<PluginInfo> {
    return await this.#info(this.#find(id));
  }

  /** Installs a plugin from a folder on the server: validated, then copied into the plugins folder. */
  async install(source: string): Promise<PluginInfo> {
    if (!isAbsolute(source)) throw new PluginError(400, "directory must be an absolute path on the server");
    const from = resolve(source);
    if (!(await stat(from).catch(() => undefined))?.isDirectory()) {
      throw new PluginError(400, "directory is not a folder on the server");
    }
    const manifest = await this.#manifest(from);
    if (this.#plugins.has(manifest.id)) {
      throw new PluginError(409, `plugin ${manifest.id} is already installed`);
    }
    await cp(from, join(this.o.dir, manifest.id), { recursive: true, errorOnExist: true, force: false });
    await this.o.db.insertInto("plugins").values({ id: manifest.id })
      .onConflict((oc) => oc.column("id").doUpdateSet({ enabled: false })).execute();
    return await this.#info(await this.#read(manifest.id));
  }

  enable(id: string): Promise<PluginInfo> {
    return this.#locked(async () => {
      const p = this.#find(id);
      if (!p.manifest) throw new PluginError(409, `plugin ${id} cannot load: ${p.error}`);
      await this.#setEnabled(id, true);
      p.enabled = true;
      if (p.state !== "active" && p.state !== "loaded") await this.#load(p);
      return await this.#info(p);
    });
  }

  disable(id: string): Promise<PluginInfo> {
    return this.#locked(async () => {
      const p = this.#find(id);
      await this.#setEnabled(id, false);
      p.enabled = false;
      await this.#unload(p);
      return await this.#info(p);
    });
  }

  /** Sets global settings (an admin's); unknown keys, per-user keys and wrong types are refused. */
  async configure(id: string, values: Record<string, unknown>): Promise<PluginInfo> {
    const p = this.#find(id);
    this.#check(p, values, false);
    const current = await this.#globalValues(id);
    await this.o.db.insertInto("plugins").values({ id, settings: { ...current, ...values } })
      .onConflict((oc) =>
        oc.column("id").doUpdateSet({ settings: { ...current, ...values }, updated_at: new Date() })
      )
      .execute();
    return await this.#info(p);
  }

  /** A user's view of the plugin's settings: declarations and the values that apply to them. */
  async userSettings(id: string, userId: string) {
    const p = this.#find(id);
    return { settings: p.manifest?.settings ?? [], values: await this.#values(p, userId) };
  }

  async setUserSettings(id: string, userId: string, values: Record<string, unknown>) {
    const p = this.#find(id);
    this.#check(p, values, true);
    const row = await this.o.db.selectFrom("plugin_user_settings").select("settings")
      .where("plugin_id", "=", id).where("user_id", "=", userId).executeTakeFirst();
    const settings = { ...row?.settings, ...values };
    await this.o.db.insertInto("plugin_user_settings").values({ plugin_id: id, user_id: userId, settings })
      .onConflict((oc) => oc.columns(["plugin_id", "user_id"]).doUpdateSet({ settings })).execute();
    return await this.userSettings(id, userId);
  }

  /** The client entry's file, for an enabled plugin that has one. */
  clientEntry(id: string): string {
    const p = this.#find(id);
    if (!p.enabled || !p.manifest?.client) {
      throw new PluginError(404, `plugin ${id} has no enabled client entry`);
    }
    return join(p.dir, p.manifest.client);
  }

  /** The routes of active plugins (for the dynamic MCP tools). */
  activeRoutes(): { plugin: PluginInfo["id"]; name: string; route: PluginRoute }[] {
    return [...this.#plugins.values()].filter((p) => p.state === "active").flatMap((p) =>
      [...p.routes.values()].map((route) => ({ plugin: p.id, name: p.manifest!.name, route }))
    );
  }

  /** Calls `listener` whenever the set of active routes may have changed; returns the unsubscribe. */
  onRoutesChanged(listener: () => void): () => void {
    this.#routeListeners.add(listener);
    return () => this.#routeListeners.delete(listener);
  }

  #routesChanged(): void {
    for (const listener of this.#routeListeners) {
      try {
        listener();
      } catch (err) {
        this.o.log.warn("plugin routes listener failed", { err });
      }
    }
  }

  /** Calls a plugin route as `caller`. */
  async callRoute(
    id: string,
    request: Omit<RouteRequest, "user">,
    caller: Caller,
  ): Promise<RouteAnswer> {
    const p = this.#find(id);
    if (p.state !== "active" || !p.process) {
      throw new PluginError(503, `plugin ${id} is not active (${p.state})`);
    }
    const key = `${request.method} ${request.path}`;
    if (!p.routes.has(key)) throw new PluginError(404, `plugin ${id} has no route ${key}`);
    let value: unknown;
    try {
      value = await this.#call(p, caller, {
        t: "route",
        route: key,
        request: { ...request, user: { id: caller.userId } },
      });
    } catch (err) {
      // The sandbox is gone (the call overran, or the plugin died): 504 for a time-out, else 502.
      const message = (err as Error).message;
      throw new PluginError(/ran longer/.test(message) ? 504 : 502, `plugin ${id}: ${message}`);
    }
    if (value && typeof value === "object" && "status" in value && "body" in value) {
      const a = value as RouteAnswer;
      const status = Number.isInteger(a.status) && a.status >= 200 && a.status <= 599 ? a.status : 200;
      return { status, body: a.body };
    }
    return { status: 200, body: value };
  }

  /** A note change, as the events plugins subscribed to (not to the plugin whose call made it). */
  handle(change: NoteChange): void {
    if (change.folder) return;
    const event = EVENT_OF[change.kind];
    const by = currentActor().agentId;
    for (const p of this.#plugins.values()) {
      if (p.state !== "active" || !p.events.has(event) || by === `plugin:${p.id}`) continue;
      const owner: Caller = {
        userId: change.userId,
        email: "",
        role: "user",
        via: "api-token",
        scope: "read-write",
      };
      const payload = {
        path: change.path,
        ...(change.from ? { from: change.from } : {}),
        userId: change.userId,
      };
      this.#call(p, owner, { t: "event", event, payload }).catch((err) =>
        this.o.log.warn("plugin event handler failed", { plugin: p.id, event, err: (err as Error).message })
      );
    }
  }

  async #call(p: Plugin, caller: Caller, message: Parameters<PluginProcess["call"]>[0]) {
    const process = p.process!;
    const id = process.nextCallId();
    p.calls.set(id, caller);
    try {
      return await process.call(message, id);
    } finally {
      p.calls.delete(id);
    }
  }

  #find(id: string): Plugin {
    const p = this.#plugins.get(id);
    if (!p) throw new PluginError(404, `no plugin ${id}`);
    return p;
  }

  async #manifest(dir: string): Promise<PluginManifest> {
    try {
      const m = await readManifest(dir);
      if (!satisfiesMinVersion(VERSION, m.minVersion)) {
        throw new ManifestError("the plugin needs a newer vault", [{
          path: ["manifest.json", "minVersion"],
          message: `needs vault ${m.minVersion}, this is ${VERSION}`,
          code: "too_new",
        }]);
      }
      if (m.server && !(await stat(join(dir, m.server)).catch(() => undefined))?.isFile()) {
        throw new ManifestError("the server entry is missing", [
          { path: ["manifest.json", "server"], message: `no file ${m.server}`, code: "missing" },
        ]);
      }
      if (m.client && !(await stat(join(dir, m.client)).catch(() => undefined))?.isFile()) {
        throw new ManifestError("the client entry is missing", [
          { path: ["manifest.json", "client"], message: `no file ${m.client}`, code: "missing" },
        ]);
      }
      return m;
    } catch (err) {
      if (err instanceof ManifestError) throw new PluginError(400, err.message, err.issues);
      throw err;
    }
  }

  /** (Re)reads a plugin folder; a bad manifest leaves the plugin in error with the reason. */
  async #read(name: string): Promise<Plugin> {
    const dir = join(this.o.dir, name);
    const p: Plugin = this.#plugins.get(name) ?? {
      id: name,
      dir,
      manifest: undefined,
      state: "installed",
      error: undefined,
      enabled: false,
      process: undefined,
      routes: new Map(),
      events: new Set(),
      calls: new Map(),
    };
    this.#plugins.set(name, p);
    try {
      const m = await this.#manifest(dir);
      if (m.id !== name) {
        throw new PluginError(400, `the folder ${name} holds plugin ${m.id}: name it ${m.id}`);
      }
      p.manifest = m;
      p.state = "installed";
      p.error = undefined;
    } catch (err) {
      p.state = "error";
      const issues = err instanceof PluginError && Array.isArray(err.issues)
        ? `: ${
          (err.issues as { path: unknown[]; message: string }[]).map((i) =>
            `${i.path.join(".")} ${i.message}`
          ).join("; ")
        }`
        : "";
      p.error = `${(err as Error).message}${issues}`;
      this.o.log.warn("plugin not loadable", { plugin: name, error: p.error });
    }
    return p;
  }

  async #load(p: Plugin): Promise<void> {
    await this.#unload(p);
    const m = p.manifest!;
    p.routes.clear();
    p.events.clear();
    p.error = undefined;
    if (!m.server) {
      p.state = "active"; // a client-only plugin: nothing runs on the server
      return;
    }
    const process = new PluginProcess({
      pluginId: p.id,
      dir: p.dir,
      timeoutMs: this.o.timeoutMs,
      memoryMb: this.o.memoryMb,
      log: this.o.log,
      onApi: (method, args, call) => this.#hostApi(p, method, args, call),
      onDeclare: (d) => {
        if (d.t === "subscribe") p.events.add(d.event);
        else {p.routes.set(`${d.method} ${d.path}`, {
            method: d.method,
            path: d.path,
            name: d.name,
            description: d.description,
          });}
      },
      onFailure: (reason) => {
        if (p.process !== process) return;
        p.state = "error";
        p.error = reason;
        p.process = undefined;
        this.o.log.error("plugin stopped", { plugin: p.id, reason });
        this.#routesChanged();
      },
    });
    p.process = process;
    p.state = "loaded";
    try {
      await process.call({
        t: "activate",
        entry: join(p.dir, m.server),
        plugin: { id: p.id, version: m.version },
      });
      if (p.process === process) p.state = "active";
      this.o.log.info("plugin active", { plugin: p.id, version: m.version });
      this.#routesChanged();
    } catch (err) {
      if (p.process !== process) return; // already failed (time, memory, exit): the reason is kept
      p.state = "error";
      p.error = `activate failed: ${(err as Error).message}`;
      p.process = undefined;
      await process.stop();
      this.o.log.error("plugin stopped", { plugin: p.id, reason: p.error });
    }
  }

  async #unload(p: Plugin): Promise<void> {
    const process = p.process;
    if (!process) {
      if (p.state === "active" || p.state === "loaded") p.state = "unloaded";
      return;
    }
    p.state = "deactivating";
    await process.stop();
    if (p.process === process) {
      p.process = undefined;
      p.state = "unloaded";
    }
    this.#routesChanged();
  }

  /** Records the choice with a new generation, which other replicas follow and this one has seen. */
  async #setEnabled(id: string, enabled: boolean): Promise<void> {
    const row = await this.o.db.insertInto("plugins").values({ id, enabled, generation: 1 })
      .onConflict((oc) =>
        oc.column("id").doUpdateSet({
          enabled,
          generation: sql<number>`plugins.generation + 1`,
          updated_at: new Date(),
        })
      )
      .returning("generation").executeTakeFirstOrThrow();
    this.#seen.set(id, row.generation);
  }

  async #globalValues(id: string): Promise<Record<string, unknown>> {
    const row = await this.o.db.selectFrom("plugins").select("settings").where("id", "=", id)
      .executeTakeFirst();
    return row?.settings ?? {};
  }

  /** Defaults, then the admin's values, then (for per-user settings) the user's own. */
  async #values(p: Plugin, userId: string | undefined): Promise<Record<string, unknown>> {
    const declared = p.manifest?.settings ?? [];
    const global = await this.#globalValues(p.id);
    const own = userId
      ? (await this.o.db.selectFrom("plugin_user_settings").select("settings")
        .where("plugin_id", "=", p.id).where("user_id", "=", userId).executeTakeFirst())?.settings ?? {}
      : {};
    const values: Record<string, unknown> = {};
    for (const s of declared) {
      values[s.key] = s.perUser && s.key in own
        ? own[s.key]
        : s.key in global
        ? global[s.key]
        : s.default ?? null;
    }
    return values;
  }

  #check(p: Plugin, values: Record<string, unknown>, perUser: boolean): void {
    const declared = new Map((p.manifest?.settings ?? []).map((s) => [s.key, s]));
    const issues: { path: string[]; message: string; code: string }[] = [];
    for (const [key, value] of Object.entries(values)) {
      const s = declared.get(key);
      if (!s) {
        issues.push({
          path: ["values", key],
          message: "not a setting of this plugin",
          code: "unrecognized_keys",
        });
      } else if (s.perUser !== perUser) {
        issues.push({
          path: ["values", key],
          message: perUser ? "set by an admin, not per user" : "each user sets this one (per user)",
          code: "custom",
        });
      } else if (jsonTypeOf(value) !== s.type) {
        issues.push({ path: ["values", key], message: `expected ${s.type}`, code: "invalid_type" });
      }
    }
    if (issues.length) throw new PluginError(400, "invalid request", issues);
  }

  async #info(p: Plugin): Promise<PluginInfo> {
    return {
      id: p.id,
      name: p.manifest?.name,
      version: p.manifest?.version,
      description: p.manifest?.description,
      state: p.state,
      error: p.error,
      enabled: p.enabled,
      server: Boolean(p.manifest?.server),
      client: Boolean(p.manifest?.client),
      settings: p.manifest?.settings ?? [],
      values: await this.#values(p, undefined),
      routes: [...p.routes.values()],
    };
  }

  /** One host API call from a plugin's sandbox. */
  async #hostApi(p: Plugin, method: string, args: unknown[], call: number | undefined): Promise<unknown> {
    const caller = call === undefined ? undefined : p.calls.get(call);
    const [group] = method.split(".");
    if (group === "storage") return await this.#storage.call(p.id, method, args, caller?.userId);
    if (group === "settings") {
      const values = await this.#values(p, caller?.userId);
      if (method === "settings.all") return values;
      if (method === "settings.get") return values[String(args[0])] ?? null;
    }
    if (group === "notes") {
      if (!caller) throw new Error("api.notes acts for a user: call it from a route or event handler");
      return await this.#notes(p, caller, method, args);
    }
    throw new Error(`no host API ${method}`);
  }

  async #notes(p: Plugin, caller: Caller, method: string, args: unknown[]): Promise<unknown> {
    const str = (v: unknown) => (typeof v === "string" ? v : undefined);
    const q = (params: Record<string, string | undefined>) => {
      const s = new URLSearchParams(
        Object.entries(params).filter((e): e is [string, string] => e[1] !== undefined),
      );
      return s.size ? `?${s}` : "";
    };
    let req: { method: string; url: string; body?: unknown };
    switch (method) {
      case "notes.get":
        req = { method: "GET", url: `/api/notes${q({ path: str(args[0]), owner: str(args[1]) })}` };
        break;
      case "notes.list":
        req = { method: "GET", url: "/api/notes/tree?stats=false" };
        break;
      case "notes.create":
        req = { method: "POST", url: "/api/notes", body: { path: args[0], content: args[1] } };
        break;
      case "notes.update":
        req = {
          method: "PUT",
          url: "/api/notes",
          body: { path: args[0], content: args[1], ...(args[2] ? { ifVersion: args[2] } : {}) },
        };
        break;
      case "notes.delete":
        req = { method: "DELETE", url: `/api/notes${q({ path: str(args[0]) })}` };
        break;
      default:
        throw new Error(`no host API ${method}`);
    }
    const res = await this.o.notes.request(`http://vault.internal${req.url}`, {
      method: req.method,
      ...(req.body !== undefined
        ? { body: JSON.stringify(req.body), headers: { "content-type": "application/json" } }
        : {}),
    }, {
      caller,
      requestId: `plugin:${p.id}`,
      agent: { agentId: `plugin:${p.id}`, agentName: p.manifest?.name },
    });
    const text = await res.text();
    const body = text ? JSON.parse(text) : null;
    if (!res.ok) throw new Error(`${res.status} ${body?.error ?? "refused"}`);
    if (method === "notes.list") {
      const folder = str(args[0])?.replace(/\/*$/, "/");
      return (body.entries as { path: string; kind: string }[])
        .filter((e) => e.kind !== "folder" && (!folder || e.path.startsWith(folder))).map((e) => e.path);
    }
    return body;
  }
}
