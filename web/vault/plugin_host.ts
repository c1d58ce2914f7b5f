/**
 * Plugins in the page: loads each enabled plugin's client entry (GET /api/plugins, then a dynamic
 * import() of its same-origin `clientUrl`, which the CSP's script-src 'self' allows), calls
 * `activate(api)` with the Client API of docs/vault.md, and keeps what the plugin registered (top-bar
 * actions, status items, sidebar panels, settings sections, code-fence renderers) for the app's slots
 * to show. A plugin that throws — in activate or in a callback — is isolated: its failure is recorded
 * for the status bar and the admin panel, logged once with console.warn, and the app and the other
 * plugins go on. The app renders plugin data (titles, texts, icons) as text only.
 */
import { CLIENT_ID } from "./api.ts";
import { closeActivePane } from "./panes.ts";

export type SettingValue = string | number | boolean | null;
export interface SettingDecl {
  key: string;
  type: "string" | "boolean" | "number";
  default?: SettingValue;
  label?: string;
  perUser: boolean;
}
export interface EnabledPlugin {
  id: string;
  name: string;
  version: string;
  state: string;
  clientUrl: string | null;
  settings: SettingDecl[];
  values: Record<string, SettingValue>;
}
export interface NoteRef {
  path: string;
  owner?: string;
  /** The saved version: changes on every save, so subscribers can refresh what they derive from the text. */
  version?: string;
}
export interface PluginContext {
  note: NoteRef | null;
  settings: Record<string, SettingValue>;
  user: { id: string; name: string };
}
/** A fence's place in the note's text: the opening line to the end of the closing one. */
export interface RawRange {
  from: number;
  to: number;
}
export type FenceRender = (
  source: string,
  element: HTMLElement,
  options: { interactive: boolean; rawRange: RawRange | undefined },
) => unknown;
type Cleanup = (() => void) | void;

export interface TopbarAction {
  plugin: string;
  id: string;
  title: string;
  icon?: string;
  run: () => unknown;
}
export interface StatusItem {
  plugin: string;
  id: string;
  title?: string;
  text: string;
}
export interface SidebarPanel {
  plugin: string;
  id: string;
  /** The sidebar layout's id of this panel. */
  key: `plugin:${string}`;
  title: string;
  render: (element: HTMLElement) => Cleanup;
}
export interface SettingsSection {
  plugin: string;
  id: string;
  title: string;
  render: (element: HTMLElement) => Cleanup;
}
export interface PluginFailure {
  plugin: string;
  message: string;
}
/** What the open note's editor offers plugins (set by the visible note). */
export interface NoteBridge {
  save: () => Promise<void>;
  replaceFence: (range: RawRange, body: string) => void;
}

interface Loaded {
  info: EnabledPlugin;
  context: PluginContext;
  subscribers: Set<(c: PluginContext) => void>;
  disposers: Set<() => void>;
  cleanup?: Cleanup;
}

const message = (err: unknown) => (err instanceof Error ? err.message : String(err));
const str = (v: unknown, what: string) => {
  if (typeof v !== "string" || !v) throw new TypeError(`${what} must be a non-empty string`);
  return v;
};

export class PluginHost {
  topbar: TopbarAction[] = [];
  status: StatusItem[] = [];
  panels: SidebarPanel[] = [];
  sections: SettingsSection[] = [];
  renderers = new Map<string, { plugin: string; render: FenceRender }>();
  failures: PluginFailure[] = [];
  /** Editor options plugins set (lineNumbers). */
  options: { lineNumbers?: boolean } = {};
  /** Bumped on every change the slots show. */
  version = 0;
  /** Bumped when a renderer comes or goes (rendered fences are drawn again). */
  rendererGeneration = 0;
  note: NoteBridge | undefined;

  #plugins = new Map<string, Loaded>();

  /** Whether any plugin is loaded (work done only for plugins can be skipped otherwise). */
  get active(): boolean {
    return this.#plugins.size > 0;
  }
  #listeners = new Set<() => void>();
  #optionListeners = new Set<(name: "lineNumbers", value: boolean) => void>();
  #user: { id: string; name: string } | undefined;
  #note: NoteRef | null = null;
  #generation = 0;

  /** Calls `fn` after every change of what plugins registered; returns the unsubscribe. */
  subscribe(fn: () => void): () => void {
    this.#listeners.add(fn);
    return () => this.#listeners.delete(fn);
  }
  onEditorOption(fn: (name: "lineNumbers", value: boolean) => void): () => void {
    this.#optionListeners.add(fn);
    return () => this.#optionListeners.delete(fn);
  }
  #changed() {
    this.version++;
    for (const fn of this.#listeners) fn();
  }

  /** A plugin failed: recorded for the slots and logged once (a warning: the app goes on). */
  fail(plugin: string, err: unknown, during: string) {
    const text = `${during}: ${message(err)}`;
    if (this.failures.some((f) => f.plugin === plugin && f.message === text)) return;
    this.failures = [...this.failures, { plugin, message: text }];
    console.warn(`vault plugin ${plugin} failed in ${text}`);
    this.#changed();
  }

  /** Runs a plugin's callback; a throw or a rejection is its failure, not the app's. */
  guard<T>(plugin: string, during: string, fn: () => T): T | undefined {
    try {
      const out = fn();
      if (out instanceof Promise) out.catch((err) => this.fail(plugin, err, during));
      return out;
    } catch (err) {
      this.fail(plugin, err, during);
      return undefined;
    }
  }

  /** Loads the enabled plugins for `user`; again (after stopping the loaded ones) on every call. */
  async start(user: { id: string; name: string }) {
    this.stop();
    this.#user = user;
    const generation = this.#generation;
    let list: EnabledPlugin[];
    try {
      const res = await fetch("/api/plugins", {
        credentials: "same-origin",
        headers: { accept: "application/json", "X-Requested-With": "XMLHttpRequest" },
      });
      if (!res.ok) throw new Error(`GET /api/plugins answered ${res.status}`);
      list = ((await res.json()) as { plugins: EnabledPlugin[] }).plugins;
    } catch (err) {
      console.warn(`vault plugins not loaded: ${message(err)}`);
      return;
    }
    await Promise.all(list.filter((p) => p.clientUrl).map((p) => this.#load(p, generation)));
  }

  /** Deactivates every plugin: cleanups run, registrations go. */
  stop() {
    this.#generation++;
    for (const p of this.#plugins.values()) this.#unload(p);
    this.#plugins.clear();
    this.failures = [];
    this.options = {};
    this.#changed();
  }

  async #load(info: EnabledPlugin, generation: number) {
    const loaded: Loaded = {
      info,
      context: { note: this.#note, settings: { ...info.values }, user: this.#user! },
      subscribers: new Set(),
      disposers: new Set(),
    };
    let mod: { activate?: (api: unknown) => unknown };
    try {
      // The version in the URL: an upgraded plugin is not served from the module cache.
      const url = new URL(`${info.clientUrl}?v=${encodeURIComponent(info.version)}`, location.origin);
      mod = await import(url.href);
      if (typeof mod.activate !== "function") throw new TypeError("the client entry exports no activate()");
    } catch (err) {
      if (generation === this.#generation) this.fail(info.id, err, "loading");
      return;
    }
    if (generation !== this.#generation) return;
    // The note may have changed while the module loaded.
    loaded.context = { ...loaded.context, note: this.#note };
    this.#plugins.set(info.id, loaded);
    try {
      const cleanup = await mod.activate(this.#api(loaded));
      if (generation !== this.#generation) return void (typeof cleanup === "function" && cleanup());
      loaded.cleanup = typeof cleanup === "function" ? (cleanup as () => void) : undefined;
    } catch (err) {
      this.#unload(loaded);
      this.#plugins.delete(info.id);
      this.fail(info.id, err, "activate");
    }
  }

  #unload(p: Loaded) {
    if (typeof p.cleanup === "function") this.guard(p.info.id, "cleanup", p.cleanup);
    for (const dispose of [...p.disposers]) dispose();
    p.subscribers.clear();
  }

  /** The open note changed (another tab, closed, saved): every plugin's context follows. */
  setNote(note: NoteRef | null) {
    const same = note?.path === this.#note?.path && note?.owner === this.#note?.owner &&
      note?.version === this.#note?.version;
    if (same) return;
    this.#note = note;
    for (const p of this.#plugins.values()) this.#setContext(p, { ...p.context, note });
  }
  /** A save of `path` produced `version`: the context's note (when it is that note) carries it. */
  noteSaved(path: string, owner: string | undefined, version: string) {
    if (this.#note && this.#note.path === path && this.#note.owner === owner) {
      this.setNote({ ...this.#note, version });
    }
  }

  /** The user's values of a plugin's settings changed elsewhere (the settings page): its context follows. */
  settingsChanged(id: string, values: Record<string, SettingValue>) {
    const p = this.#plugins.get(id);
    if (p) this.#setContext(p, { ...p.context, settings: values });
  }

  #setContext(p: Loaded, context: PluginContext) {
    const settingsChanged = context.settings !== p.context.settings;
    p.context = context;
    // Rendered fences read their plugin's settings: a change draws them again.
    if (settingsChanged && [...this.renderers.values()].some((r) => r.plugin === p.info.id)) {
      this.rendererGeneration++;
      this.#changed();
    }
    for (const fn of [...p.subscribers]) this.guard(p.info.id, "context subscriber", () => fn(context));
  }

  /** Registers `item` in one of the slot lists, removed again by the returned function. */
  #register<T>(p: Loaded, list: "topbar" | "status" | "panels" | "sections", item: T): () => void {
    (this[list] as T[]) = [...(this[list] as T[]), item];
    this.#changed();
    const dispose = () => {
      p.disposers.delete(dispose);
      (this[list] as T[]) = (this[list] as T[]).filter((x) => x !== item);
      this.#changed();
    };
    p.disposers.add(dispose);
    return dispose;
  }

  #api(p: Loaded) {
    const id = p.info.id;
    // The api's methods are plain functions over `host` (a plugin may call them detached).
    // deno-lint-ignore no-this-alias
    const host = this;
    return Object.freeze({
      plugin: Object.freeze({ id, version: p.info.version }),
      context: {
        get: () => p.context,
        subscribe(fn: (c: PluginContext) => void) {
          if (typeof fn !== "function") throw new TypeError("subscribe takes a function");
          p.subscribers.add(fn);
          host.guard(id, "context subscriber", () => fn(p.context));
          return () => void p.subscribers.delete(fn);
        },
        async setPluginSetting(key: string, value: SettingValue) {
          const res = await fetch(`/api/plugins/${encodeURIComponent(id)}/settings`, {
            method: "PUT",
            credentials: "same-origin",
            headers: {
              "content-type": "application/json",
              "X-Requested-With": "XMLHttpRequest",
              "X-Vault-Client-Id": CLIENT_ID,
            },
            body: JSON.stringify({ values: { [key]: value } }),
          });
          if (!res.ok) throw new Error(`setting ${key} was refused (HTTP ${res.status})`);
          const body = (await res.json()) as { values: Record<string, SettingValue> };
          host.#setContext(p, { ...p.context, settings: body.values });
        },
      },
      editor: {
        setOption(name: string, value: unknown) {
          if (name !== "lineNumbers") throw new TypeError(`unknown editor option ${name}`);
          if (typeof value !== "boolean") throw new TypeError("lineNumbers takes a boolean");
          host.options = { ...host.options, lineNumbers: value };
          for (const fn of host.#optionListeners) fn(name, value);
          host.#changed();
        },
      },
      notes: {
        saveCurrent: () => host.note ? host.note.save() : Promise.reject(new Error("no note is open")),
        replaceFenceAtRange(rawRange: RawRange, text: string) {
          if (!host.note) throw new Error("no note is open");
          host.note.replaceFence(rawRange, String(text));
        },
      },
      ui: {
        closePane: () => void closeActivePane(),
        registerTopbarAction(a: { id: string; title: string; icon?: string; run: () => unknown }) {
          if (typeof a?.run !== "function") throw new TypeError("registerTopbarAction needs run()");
          const item: TopbarAction = {
            plugin: id,
            id: str(a.id, "id"),
            title: str(a.title, "title"),
            ...(a.icon === undefined ? {} : { icon: String(a.icon) }),
            run: a.run,
          };
          return host.#register(p, "topbar", item);
        },
        registerStatusBarItem(s: { id: string; title?: string; text: string }) {
          const item: StatusItem = {
            plugin: id,
            id: str(s.id, "id"),
            ...(s.title === undefined ? {} : { title: String(s.title) }),
            text: String(s.text ?? ""),
          };
          const remove = host.#register(p, "status", item);
          return {
            update({ text }: { text: string }) {
              item.text = String(text ?? "");
              host.status = [...host.status];
              host.#changed();
            },
            remove,
          };
        },
        registerSidebarPanel(s: { id: string; title: string; render: SidebarPanel["render"] }) {
          if (typeof s?.render !== "function") throw new TypeError("registerSidebarPanel needs render()");
          const panelId = str(s.id, "id");
          return host.#register(
            p,
            "panels",
            {
              plugin: id,
              id: panelId,
              key: `plugin:${id}:${panelId}`,
              title: str(s.title, "title"),
              render: s.render,
            } satisfies SidebarPanel,
          );
        },
        registerSettingsSection(s: { id: string; title: string; render: SettingsSection["render"] }) {
          if (typeof s?.render !== "function") throw new TypeError("registerSettingsSection needs render()");
          return host.#register(
            p,
            "sections",
            {
              plugin: id,
              id: str(s.id, "id"),
              title: str(s.title, "title"),
              render: s.render,
            } satisfies SettingsSection,
          );
        },
      },
      markdown: {
        registerCodeFenceRenderer(lang: string, render: FenceRender) {
          if (typeof render !== "function") throw new TypeError("registerCodeFenceRenderer needs a function");
          const name = str(lang, "lang").toLowerCase();
          const entry = { plugin: id, render };
          host.renderers.set(name, entry);
          host.rendererGeneration++;
          host.#changed();
          const dispose = () => {
            p.disposers.delete(dispose);
            if (host.renderers.get(name) === entry) host.renderers.delete(name);
            host.rendererGeneration++;
            host.#changed();
          };
          p.disposers.add(dispose);
          return dispose;
        },
      },
      fetch(path: string, init: RequestInit = {}) {
        if (typeof path !== "string" || !path.startsWith("/")) throw new TypeError("path must start with /");
        const headers = new Headers(init.headers);
        headers.set("X-Requested-With", "XMLHttpRequest");
        headers.set("X-Vault-Client-Id", CLIENT_ID);
        return fetch(`/api/plugins/${encodeURIComponent(id)}${path}`, {
          ...init,
          headers,
          credentials: "same-origin",
        });
      },
    });
  }
}

/** The page's one host. */
export const pluginHost = new PluginHost();
