/**
 * Where plugins appear in the app: top-bar actions, the status bar (items and failures), sidebar
 * panels and settings sections (a plugin renders into an element the app gives it), and the form of
 * a plugin's settings by their declared types. Titles, texts and icons from plugins are text here,
 * never HTML.
 */
import { useEffect, useRef, useState } from "preact/hooks";
import { api } from "./api.ts";
import {
  type EnabledPlugin,
  pluginHost,
  type SettingDecl,
  type SettingsSection,
  type SettingValue,
  type SidebarPanel,
} from "./plugin_host.ts";

/** Re-renders the caller whenever what plugins registered changes; returns the host. */
export function usePluginHost() {
  const [, setVersion] = useState(pluginHost.version);
  useEffect(() => pluginHost.subscribe(() => setVersion(pluginHost.version)), []);
  return pluginHost;
}

export function PluginTopbar() {
  const host = usePluginHost();
  if (host.topbar.length === 0) return null;
  return (
    <span class="plugin-actions">
      {host.topbar.map((a) => (
        <button
          type="button"
          class="small"
          key={`${a.plugin}:${a.id}`}
          title={a.title}
          aria-label={a.title}
          onClick={() => host.guard(a.plugin, `the top-bar action ${a.id}`, a.run)}
        >
          {a.icon || a.title}
        </button>
      ))}
    </span>
  );
}

/** The editor's status bar: plugins' items, and a notice for each plugin that failed. */
export function PluginStatusBar() {
  const host = usePluginHost();
  if (host.status.length === 0 && host.failures.length === 0) return null;
  return (
    <footer class="statusbar" aria-label="Status bar">
      {host.failures.map((f) => (
        <span class="status-item failed" key={`${f.plugin}:${f.message}`} role="status">
          Plugin {f.plugin} failed ({f.message})
        </span>
      ))}
      {host.status.map((s) => (
        <span
          class="status-item"
          key={`${s.plugin}:${s.id}`}
          data-plugin={s.plugin}
          {...(s.title ? { title: s.title } : {})}
        >
          {s.text}
        </span>
      ))}
    </footer>
  );
}

/** An element a plugin renders into; its cleanup runs when the slot goes. */
function Mount({ slot, during }: { slot: SidebarPanel | SettingsSection; during: string }) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = ref.current!;
    const cleanup = pluginHost.guard(slot.plugin, during, () => slot.render(el));
    return () => {
      if (typeof cleanup === "function") pluginHost.guard(slot.plugin, `${during} (cleanup)`, cleanup);
      el.replaceChildren();
    };
  }, [slot]);
  return <div ref={ref} class="plugin-mount" data-plugin={slot.plugin} />;
}

export const PluginPanelBody = ({ panel }: { panel: SidebarPanel }) => (
  <Mount slot={panel} during={`the sidebar panel ${panel.id}`} />
);

/** The sidebar layout with the plugins' panels: saved ones in their place, new ones at the end, shown. */
export function withPluginPanels<L extends { id: string; visible: boolean }>(
  layout: L[],
  panels: SidebarPanel[],
): L[] {
  const known = new Set<string>(panels.map((p) => p.key));
  const kept = layout.filter((l) => !l.id.startsWith("plugin:") || known.has(l.id));
  const added = panels.filter((p) => !kept.some((l) => l.id === p.key)).map((p) =>
    ({ id: p.key, visible: true }) as L
  );
  return [...kept, ...added];
}

/** A plugin's settings as a form by their declared types. */
export function SettingsForm(
  { plugin, settings, values, onSave }: {
    plugin: string;
    settings: SettingDecl[];
    values: Record<string, SettingValue>;
    onSave: (values: Record<string, SettingValue>) => Promise<unknown>;
  },
) {
  const [draft, setDraft] = useState(values);
  const [message, setMessage] = useState("");
  // Follow the server's values when they change, not on every reload of the list (that would drop typing).
  useEffect(() => setDraft(values), [JSON.stringify(values)]);
  if (settings.length === 0) return null;
  const field = (s: SettingDecl) => {
    const id = `plugin-${plugin}-${s.key}`;
    const v = draft[s.key] ?? s.default ?? null;
    const set = (value: SettingValue) => setDraft({ ...draft, [s.key]: value });
    return (
      <label key={s.key} for={id}>
        {s.label || s.key}
        {s.type === "boolean"
          ? (
            <input
              id={id}
              type="checkbox"
              checked={v === true}
              onChange={(e) => set(e.currentTarget.checked)}
            />
          )
          : s.type === "number"
          ? (
            <input
              id={id}
              type="number"
              value={v === null ? "" : String(v)}
              onInput={(e) => set(Number(e.currentTarget.value))}
            />
          )
          : (
            <input
              id={id}
              type="text"
              value={v === null ? "" : String(v)}
              onInput={(e) => set(e.currentTarget.value)}
            />
          )}
      </label>
    );
  };
  return (
    <form
      class="inline plugin-settings"
      onSubmit={(e) => {
        e.preventDefault();
        const changed = Object.fromEntries(settings.map((s) => [s.key, draft[s.key] ?? s.default ?? null]));
        onSave(changed).then(() => setMessage("Saved."), (err) => setMessage(err.message));
      }}
    >
      {settings.map(field)}
      <button type="submit">Save</button>
      {message && <span role="status">{message}</span>}
    </form>
  );
}

/** /settings: the caller's own values of per-user plugin settings, and the plugins' sections. */
export function PluginSettings() {
  const host = usePluginHost();
  const [plugins, setPlugins] = useState<EnabledPlugin[]>([]);
  const load = () =>
    void api<{ plugins: EnabledPlugin[] }>("/api/plugins").then((r) => setPlugins(r.plugins));
  useEffect(load, []);
  const mine = plugins.filter((p) => p.settings.some((s) => s.perUser));
  return (
    <>
      {mine.length > 0 && (
        <section class="card" aria-labelledby="plugin-settings-h">
          <h2 id="plugin-settings-h">Plugins</h2>
          {mine.map((p) => (
            <div key={p.id} class="plugin-user-settings">
              <h3>{p.name}</h3>
              <SettingsForm
                plugin={p.id}
                settings={p.settings.filter((s) => s.perUser)}
                values={p.values}
                onSave={async (values) => {
                  const r = await api<{ values: Record<string, SettingValue> }>(
                    `/api/plugins/${encodeURIComponent(p.id)}/settings`,
                    { method: "PUT", body: { values } },
                  );
                  host.settingsChanged(p.id, r.values);
                  load();
                }}
              />
            </div>
          ))}
        </section>
      )}
      {host.sections.map((s) => (
        <section class="card" key={`${s.plugin}:${s.id}`} aria-label={s.title}>
          <h2>{s.title}</h2>
          <Mount slot={s} during={`the settings section ${s.id}`} />
        </section>
      ))}
    </>
  );
}
