/**
 * The admin panel's plugins: every plugin found with its state and error, install from a folder on
 * the server, enable, disable, and the global settings (a form by the manifest's setting types).
 * The admin API has no removal: a plugin is removed from the plugins folder on the server. After a
 * change the page's own plugins are loaded again, so the admin sees its effect at once.
 */
import { useState } from "preact/hooks";
import { api, type Me } from "./api.ts";
import { useApiValue } from "./use_api.ts";
import { pluginHost, type SettingDecl, type SettingValue } from "./plugin_host.ts";
import { SettingsForm } from "./plugin_slots.tsx";

interface AdminPlugin {
  id: string;
  name?: string;
  version?: string;
  description?: string;
  state: string;
  error?: string;
  enabled: boolean;
  server: boolean;
  client: boolean;
  settings: SettingDecl[];
  values: Record<string, SettingValue>;
}

export function AdminPlugins({ me }: { me: Me }) {
  const [directory, setDirectory] = useState("");
  const [error, setError] = useState("");
  // A load after a failed action must not hide its message: only a success clears it.
  const [plugins, load] = useApiValue(
    "/api/admin/plugins",
    (r: { plugins: AdminPlugin[] }) => r.plugins,
    [],
    setError,
  );
  const changed = () => {
    setError("");
    load();
    void pluginHost.start({ id: me.id, name: me.name });
  };
  const act = (p: Promise<unknown>) =>
    p.then(changed, (e) => {
      setError(e instanceof Error ? e.message : String(e));
      load();
    });
  const path = (id: string, rest: string) => `/api/admin/plugins/${encodeURIComponent(id)}${rest}`;
  return (
    <section class="card" aria-labelledby="plugins-h">
      <h2 id="plugins-h">Plugins</h2>
      {error && <p class="error" role="alert">{error}</p>}
      <form
        class="inline"
        onSubmit={(e) => {
          e.preventDefault();
          void act(
            api("/api/admin/plugins", { method: "POST", body: { directory } }).then(() => setDirectory("")),
          );
        }}
      >
        <label>
          Install from a folder on the server
          <input
            class="mono"
            value={directory}
            placeholder="/srv/plugins/word-count"
            onInput={(e) => setDirectory(e.currentTarget.value)}
          />
        </label>
        <button type="submit" disabled={!directory.trim()}>Install</button>
      </form>
      {plugins.length === 0 && <p class="muted">No plugins installed.</p>}
      <ul class="list plugin-list">
        {plugins.map((p) => {
          const global = p.settings.filter((s) => !s.perUser);
          return (
            <li key={p.id} class="plugin-row" data-plugin={p.id}>
              <div class="plugin-head">
                <strong>{p.name ?? p.id}</strong> <span class="muted">{p.id} {p.version ?? ""}</span>{" "}
                <span class={`plugin-state ${p.state}`}>{p.state}</span>
                {p.enabled
                  ? (
                    <button
                      type="button"
                      onClick={() => void act(api(path(p.id, "/disable"), { method: "POST" }))}
                    >
                      Disable {p.name ?? p.id}
                    </button>
                  )
                  : (
                    <button
                      type="button"
                      onClick={() => void act(api(path(p.id, "/enable"), { method: "POST" }))}
                    >
                      Enable {p.name ?? p.id}
                    </button>
                  )}
              </div>
              {p.description && <p class="muted">{p.description}</p>}
              {p.error && <p class="error">{p.error}</p>}
              {global.length > 0 && (
                <SettingsForm
                  plugin={`admin-${p.id}`}
                  settings={global}
                  values={p.values}
                  onSave={(values) =>
                    api(path(p.id, "/settings"), { method: "PUT", body: { values } }).then(changed)}
                />
              )}
            </li>
          );
        })}
      </ul>
    </section>
  );
}
