/** Admin: the accounts that may sign in — create, change role or password, ban, remove. */
import { DataTable } from "../../shared/data_table.tsx";
import { useState } from "preact/hooks";
import { type AdminUser, api } from "../api.ts";
import {
  Confirm,
  Dialog,
  Empty,
  ErrorNote,
  Field,
  Loading,
  Notice,
  PageHeader,
  Time,
  useAction,
  useListAction,
  useLoad,
} from "../components.tsx";
import type { Me } from "../main.tsx";

export function UsersPage(props: { me: Me }) {
  if (props.me.mode !== "user") {
    return (
      <>
        <PageHeader title="Users" />
        <Empty title="This server has no user accounts">
          It runs with <code>MEMSVC_AUTH_MODE={props.me.mode}</code>: every request acts as the operator. Set
          {" "}
          <code>MEMSVC_AUTH_MODE=user</code> to give people their own accounts.
        </Empty>
      </>
    );
  }
  return <UserList me={props.me} />;
}

function UserList({ me }: { me: Me }) {
  const users = useLoad(() => api.listUsers(), []);
  const [creating, setCreating] = useState(false);
  const [passwordFor, setPasswordFor] = useState<AdminUser>();
  const [removing, setRemoving] = useState<AdminUser>();
  const action = useListAction(users.reload);
  const { act, done, setDone } = action;

  return (
    <>
      <PageHeader
        title="Users"
        lead="People who can sign in to this memsvc. Admins manage users and see health and metrics."
      >
        <button type="button" class="btn btn-primary" onClick={() => setCreating(true)}>New user</button>
      </PageHeader>
      <ErrorNote error={action.error} />
      {done && <Notice tone="success">{done}</Notice>}
      {users.error && <ErrorNote error={users.error} onRetry={users.reload} />}
      {!users.data && users.loading && <Loading />}
      {users.data && users.data.users.length === 0 && <Empty title="No users yet" />}
      {users.data && users.data.users.length > 0 && (
        <DataTable
          label="Users"
          named
          rows={users.data.users}
          rowKey={(u) => u.id}
          rowProps={(u) => ({ "data-email": u.email })}
          columns={[
            {
              header: "User",
              cell: (u) => (
                <>
                  <div class="strong">{u.name || u.email}</div>
                  <div class="muted small">{u.email}{u.id === me.user.id && " (you)"}</div>
                </>
              ),
            },
            {
              header: "Role",
              cell: (u) => (
                <select
                  aria-label={`Role of ${u.email}`}
                  value={u.role ?? "user"}
                  disabled={action.busy}
                  onChange={(e) => {
                    const role = e.currentTarget.value;
                    e.currentTarget.value = u.role ?? "user"; // shown again after the server agrees
                    void act(
                      () => api.setRole(u.id, role),
                      `${u.email} is now ${role === "admin" ? "an admin" : "a user"}.`,
                    );
                  }}
                >
                  <option value="user">user</option>
                  <option value="admin">admin</option>
                </select>
              ),
            },
            {
              header: "Status",
              cell: (u) =>
                u.banned
                  ? <span class="badge badge-danger">banned</span>
                  : <span class="badge badge-ok">active</span>,
            },
            { header: "Created", cell: (u) => <Time iso={u.createdAt} /> },
            {
              header: <span class="sr-only">Actions</span>,
              cell: (u) => (
                <div class="row-actions">
                  <button
                    type="button"
                    class="btn btn-small"
                    onClick={() => setPasswordFor(u)}
                  >
                    Set password
                  </button>
                  {u.banned
                    ? (
                      <button
                        type="button"
                        class="btn btn-small"
                        onClick={() => act(() => api.unban(u.id), `${u.email} can sign in again.`)}
                      >
                        Unban
                      </button>
                    )
                    : (
                      <button
                        type="button"
                        class="btn btn-small"
                        onClick={() =>
                          act(
                            () => api.ban(u.id),
                            `${u.email} is banned: their sessions and tokens stop working.`,
                          )}
                      >
                        Ban
                      </button>
                    )}
                  <button
                    type="button"
                    class="btn btn-small btn-danger"
                    onClick={() => setRemoving(u)}
                  >
                    Remove
                  </button>
                </div>
              ),
            },
          ]}
        />
      )}
      <CreateUser
        open={creating}
        onClose={() => setCreating(false)}
        onCreated={async (email) => {
          setCreating(false);
          setDone(`Created ${email}. They can sign in now.`);
          await users.reload();
        }}
      />
      <SetPassword user={passwordFor} onClose={() => setPasswordFor(undefined)} onDone={(m) => setDone(m)} />
      <Confirm
        open={!!removing}
        title="Remove user?"
        confirmLabel="Remove user"
        onClose={() => setRemoving(undefined)}
        onConfirm={async () => {
          const u = removing!;
          await api.removeUser(u.id);
          setRemoving(undefined);
          setDone(`Removed ${u.email}.`);
          await users.reload();
        }}
      >
        <p>
          <strong>{removing?.email}</strong>{" "}
          will no longer be able to sign in, and their API tokens stop working. This cannot be undone.
        </p>
      </Confirm>
    </>
  );
}

function CreateUser(
  props: { open: boolean; onClose: () => void; onCreated: (email: string) => Promise<void> },
) {
  const [form, setForm] = useState({ email: "", name: "", password: "", role: "user" });
  const action = useAction();
  const set = (k: keyof typeof form) => (e: Event) =>
    setForm({ ...form, [k]: (e.currentTarget as HTMLInputElement).value });
  const submit = async (e: Event) => {
    e.preventDefault();
    const created = await action.run(() =>
      api.createUser({ ...form, name: form.name || form.email.split("@")[0]! })
    );
    if (created) {
      const email = form.email;
      setForm({ email: "", name: "", password: "", role: "user" });
      await props.onCreated(email);
    }
  };
  return (
    <Dialog title="New user" open={props.open} onClose={props.onClose}>
      <form onSubmit={submit} class="dialog-body stack">
        <ErrorNote error={action.error} />
        <Field label="Email">
          <input name="email" type="email" required value={form.email} onInput={set("email")} />
        </Field>
        <Field label="Name" hint="Optional; shown instead of the email.">
          <input name="name" value={form.name} onInput={set("name")} />
        </Field>
        <Field label="Password" hint="At least 10 characters. Share it with them safely; they can change it.">
          <input
            name="password"
            type="password"
            autocomplete="new-password"
            minLength={10}
            required
            value={form.password}
            onInput={set("password")}
          />
        </Field>
        <Field label="Role">
          <select name="role" value={form.role} onChange={set("role")}>
            <option value="user">user</option>
            <option value="admin">admin</option>
          </select>
        </Field>
        <div class="dialog-actions">
          <button type="button" class="btn" onClick={props.onClose}>Cancel</button>
          <button type="submit" class="btn btn-primary" disabled={action.busy}>
            {action.busy ? "Creating…" : "Create user"}
          </button>
        </div>
      </form>
    </Dialog>
  );
}

function SetPassword(props: { user?: AdminUser; onClose: () => void; onDone: (message: string) => void }) {
  const [password, setPassword] = useState("");
  const action = useAction();
  const submit = async (e: Event) => {
    e.preventDefault();
    const u = props.user!;
    const ok = await action.run(async () => {
      await api.setPassword(u.id, password);
      return true;
    });
    if (ok) {
      setPassword("");
      props.onClose();
      props.onDone(`New password set for ${u.email}.`);
    }
  };
  return (
    <Dialog title={`Set password for ${props.user?.email ?? ""}`} open={!!props.user} onClose={props.onClose}>
      <form onSubmit={submit} class="dialog-body stack">
        <ErrorNote error={action.error} />
        <Field label="New password" hint="At least 10 characters.">
          <input
            type="password"
            name="new-password"
            autocomplete="new-password"
            minLength={10}
            required
            value={password}
            onInput={(e) =>
              setPassword(e.currentTarget.value)}
          />
        </Field>
        <div class="dialog-actions">
          <button type="button" class="btn" onClick={props.onClose}>Cancel</button>
          <button type="submit" class="btn btn-primary" disabled={action.busy}>Set password</button>
        </div>
      </form>
    </Dialog>
  );
}
