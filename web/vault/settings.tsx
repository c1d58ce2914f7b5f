/**
 * Account settings (passkeys; API keys, whose secret is shown once, right after creating it) and the
 * admin panel (users, invite codes, registration mode).
 */
import { DataTable } from "../shared/data_table.tsx";
import { startRegistration } from "@simplewebauthn/browser";
import { useState } from "preact/hooks";
import { useLoad as useSharedLoad } from "../shared/use_load.ts";
import { api, type Me } from "./api.ts";
import { passkeysPossible } from "./sign_in.tsx";
import { AdminPlugins } from "./plugin_admin.tsx";
import { PluginSettings } from "./plugin_slots.tsx";
import { SharingSection } from "./sharing.tsx";

const when = (iso: string | null | undefined) => (iso ? new Date(iso).toLocaleString() : "—");

/** `path`'s answer (`initial` until it comes), a reload, and the last error's message. */
function useLoad<T>(path: string, initial: T): [T, () => void, string] {
  const s = useSharedLoad(() => api<T>(path), [path]);
  return [s.data ?? initial, () => void s.reload(), s.error instanceof Error ? s.error.message : ""];
}

function Passkeys() {
  const [keys, load, error] = useLoad<{ id: string; name?: string; createdAt: string }[] | null>(
    "/api/auth/passkey/list-user-passkeys",
    [],
  );
  const [message, setMessage] = useState("");
  const add = async () => {
    try {
      const options = await api<Parameters<typeof startRegistration>[0]["optionsJSON"]>(
        "/api/auth/passkey/generate-register-options",
      );
      const response = await startRegistration({ optionsJSON: options });
      await api("/api/auth/passkey/verify-registration", {
        method: "POST",
        body: { response, name: navigator.platform || "passkey" },
      });
      setMessage("Passkey added.");
      load();
    } catch (err) {
      setMessage(err instanceof Error ? err.message : String(err));
    }
  };
  return (
    <section class="card" aria-labelledby="passkeys-h">
      <h2 id="passkeys-h">Passkeys</h2>
      <p class="muted">Sign in without a password, with this device's screen lock or a security key.</p>
      {error && <p class="error">{error}</p>}
      <ul class="list">
        {(keys ?? []).map((k) => (
          <li key={k.id}>
            {k.name || "passkey"} <span class="muted">added {when(k.createdAt)}</span>
            <button
              type="button"
              onClick={() =>
                void api("/api/auth/passkey/delete-passkey", { method: "POST", body: { id: k.id } }).then(
                  load,
                )}
            >
              Remove
            </button>
          </li>
        ))}
      </ul>
      {passkeysPossible()
        ? <button type="button" onClick={() => void add()}>Add a passkey</button>
        : (
          <p class="muted">
            Passkeys need the vault's domain name: open it by name (not at {location.hostname}) to add one.
          </p>
        )}
      {message && <p role="status">{message}</p>}
    </section>
  );
}

interface ApiKey {
  id: string;
  name: string;
  prefix: string;
  scope: string;
  createdAt: string;
  lastUsedAt: string | null;
}

function ApiKeys() {
  const [data, load, error] = useLoad<{ keys: ApiKey[] }>("/api/api-keys", { keys: [] });
  const [created, setCreated] = useState<{ name: string; key: string }>();
  const [failure, setFailure] = useState("");
  const create = async (e: Event) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget as HTMLFormElement);
    try {
      const k = await api<{ name: string; key: string }>("/api/api-keys", {
        method: "POST",
        body: { name: String(form.get("name")), scope: String(form.get("scope")) },
      });
      setCreated(k);
      setFailure("");
      (e.currentTarget as HTMLFormElement | null)?.reset();
      load();
    } catch (err) {
      setFailure(err instanceof Error ? err.message : String(err));
    }
  };
  return (
    <section class="card" aria-labelledby="keys-h">
      <h2 id="keys-h">API keys</h2>
      <p class="muted">
        For agent hosts and scripts (MCP at /api/mcp). A key is shown once, when it is made.
      </p>
      {error && <p class="error">{error}</p>}
      {created && (
        <div class="banner" role="alert">
          <p>Copy the key “{created.name}” now: it will not be shown again.</p>
          <input
            readOnly
            aria-label="New API key"
            value={created.key}
            class="mono"
            onFocus={(e) => e.currentTarget.select()}
          />
          <button
            type="button"
            onClick={() => void navigator.clipboard?.writeText(created.key).catch(() => {})}
          >
            Copy
          </button>
          <button type="button" onClick={() => setCreated(undefined)}>Done</button>
        </div>
      )}
      <DataTable
        label="API keys"
        rows={data.keys}
        rowKey={(k) => k.id}
        columns={[
          { header: "Name", cell: (k) => k.name },
          { header: "Key", cell: (k) => <>{k.prefix}…</>, class: "mono" },
          { header: "Scope", cell: (k) => k.scope },
          { header: "Created", cell: (k) => when(k.createdAt) },
          { header: "Last used", cell: (k) => when(k.lastUsedAt) },
          {
            header: <span class="sr-only">Actions</span>,
            cell: (k) => (
              <button
                type="button"
                onClick={() =>
                  void api(`/api/api-keys/${encodeURIComponent(k.id)}`, { method: "DELETE" }).then(load)}
              >
                Revoke {k.name}
              </button>
            ),
          },
        ]}
      />
      <form class="inline" onSubmit={(e) => void create(e)}>
        <label>
          Name <input name="name" required maxLength={100} />
        </label>
        <label>
          Scope{" "}
          <select name="scope">
            <option value="read-write">read and write</option>
            <option value="read">read only</option>
          </select>
        </label>
        <button type="submit">Create key</button>
      </form>
      {failure && <p class="error">{failure}</p>}
    </section>
  );
}

export function SettingsPage({ me }: { me: Me }) {
  return (
    <main class="page">
      <h1>Settings</h1>
      <p class="muted">Signed in as {me.name} ({me.email}).</p>
      <SharingSection />
      <Passkeys />
      <ApiKeys />
      <PluginSettings />
    </main>
  );
}

interface User {
  id: string;
  email: string;
  name: string;
  role: "admin" | "user";
  disabled: boolean;
}
interface Invite {
  id: string;
  code: string;
  createdAt: string;
  expiresAt: string | null;
  status: string;
}

export function AdminPage({ me }: { me: Me }) {
  const [users, loadUsers, usersError] = useLoad<{ users: User[] }>("/api/admin/users", { users: [] });
  const [invites, loadInvites] = useLoad<{ invites: Invite[] }>("/api/admin/invites", { invites: [] });
  const [registration, loadRegistration] = useLoad<{ mode: string }>("/api/admin/settings/registration", {
    mode: "",
  });
  const [error, setError] = useState("");
  const act = (p: Promise<unknown>, then: () => void) =>
    void p.then(() => (setError(""), then()), (e) => setError(e instanceof Error ? e.message : String(e)));
  const patch = (u: User, body: Record<string, unknown>) =>
    act(api(`/api/admin/users/${encodeURIComponent(u.id)}`, { method: "PATCH", body }), loadUsers);
  return (
    <main class="page">
      <h1>Admin</h1>
      {(error || usersError) && <p class="error" role="alert">{error || usersError}</p>}
      <section class="card" aria-labelledby="reg-h">
        <h2 id="reg-h">Registration</h2>
        <label>
          Who may create an account{" "}
          <select
            value={registration.mode}
            onChange={(e) =>
              act(
                api("/api/admin/settings/registration", {
                  method: "PUT",
                  body: { mode: e.currentTarget.value },
                }),
                loadRegistration,
              )}
          >
            <option value="invite-only">people with an invite code</option>
            <option value="open">anyone</option>
          </select>
        </label>
      </section>
      <section class="card" aria-labelledby="inv-h">
        <h2 id="inv-h">Invite codes</h2>
        <button
          type="button"
          onClick={() => act(api("/api/admin/invites", { method: "POST", body: {} }), loadInvites)}
        >
          New invite code
        </button>
        <DataTable
          label="Invite codes"
          rows={invites.invites}
          rowKey={(i) => i.id}
          columns={[
            { header: "Code", cell: (i) => i.code, class: "mono" },
            { header: "Status", cell: (i) => i.status },
            { header: "Created", cell: (i) => when(i.createdAt) },
            { header: "Expires", cell: (i) => when(i.expiresAt) },
            {
              header: <span class="sr-only">Actions</span>,
              cell: (i) =>
                i.status === "unused" && (
                  <button
                    type="button"
                    onClick={() =>
                      act(
                        api(`/api/admin/invites/${encodeURIComponent(i.id)}`, { method: "DELETE" }),
                        loadInvites,
                      )}
                  >
                    Revoke {i.code.slice(0, 6)}…
                  </button>
                ),
            },
          ]}
        />
      </section>
      <section class="card" aria-labelledby="users-h">
        <h2 id="users-h">Users</h2>
        <DataTable
          label="Users"
          rows={users.users}
          rowKey={(u) => u.id}
          columns={[
            { header: "Name", cell: (u) => u.name },
            { header: "Email", cell: (u) => u.email },
            { header: "Role", cell: (u) => u.role },
            { header: "Status", cell: (u) => u.disabled ? "disabled" : "active" },
            {
              header: <span class="sr-only">Actions</span>,
              cell: (u) =>
                u.id !== me.id && (
                  <>
                    <button
                      type="button"
                      onClick={() => patch(u, { role: u.role === "admin" ? "user" : "admin" })}
                    >
                      {u.role === "admin" ? `Make ${u.name} a user` : `Make ${u.name} an admin`}
                    </button>
                    <button type="button" onClick={() => patch(u, { disabled: !u.disabled })}>
                      {u.disabled ? `Enable ${u.name}` : `Disable ${u.name}`}
                    </button>
                  </>
                ),
            },
          ]}
        />
      </section>
      <AdminPlugins me={me} />
    </main>
  );
}
