/**
 * Sharing: the dialog of an own note (share it, or its folder, with a person by email, read or
 * read-write; see and end its shares), and the Sharing section of the settings: the access requests
 * inbox (approve with a permission, deny), asking someone for access, and what is shared both ways.
 */
import { useEffect, useState } from "preact/hooks";
import { api } from "./api.ts";
import { Modal } from "../shared/modal.tsx";
import { useApiValue } from "./use_api.ts";

interface Share {
  id: string;
  ownerName: string;
  ownerEmail: string;
  granteeName: string;
  granteeEmail: string;
  path: string;
  permission: "read" | "read-write";
}
interface AccessRequest {
  id: string;
  requesterName: string;
  requesterEmail: string;
  ownerName: string;
  ownerEmail: string;
  path: string;
  permission: "read" | "read-write";
  message: string | null;
  status: "pending" | "approved" | "denied";
}

const messageOf = (err: unknown) => (err instanceof Error ? err.message : String(err));
const folderOf = (path: string) => (path.includes("/") ? path.slice(0, path.lastIndexOf("/") + 1) : "");

export function ShareDialog({ path, onClose }: { path: string; onClose: () => void }) {
  const [error, setError] = useState("");
  const [done, setDone] = useState("");
  const folder = folderOf(path);
  // The shares that reach this note: of it, or of a folder above it.
  const [shares, load] = useApiValue(
    "/api/shares",
    (r: { given: Share[] }) =>
      r.given.filter((s) => s.path === path || (s.path.endsWith("/") && path.startsWith(s.path))),
    [],
    setError,
    [path],
  );
  const submit = async (e: Event) => {
    e.preventDefault();
    const form = new FormData(e.currentTarget as HTMLFormElement);
    const target = form.get("scope") === "folder" && folder ? folder : path;
    try {
      await api("/api/shares", {
        method: "POST",
        body: { path: target, email: String(form.get("email")), permission: String(form.get("permission")) },
      });
      setError("");
      setDone(`Shared ${target} with ${String(form.get("email"))}.`);
      load();
    } catch (err) {
      setDone("");
      setError(messageOf(err));
    }
  };
  return (
    <Modal title={`Share ${path}`} onClose={onClose}>
      <form class="stack" onSubmit={(e) => void submit(e)}>
        <label>
          Person's email <input name="email" type="email" required />
        </label>
        <label>
          Access{" "}
          <select name="permission">
            <option value="read">can read</option>
            <option value="read-write">can read and edit</option>
          </select>
        </label>
        {folder && (
          <label>
            What{" "}
            <select name="scope">
              <option value="note">this note</option>
              <option value="folder">the whole folder {folder}</option>
            </select>
          </label>
        )}
        {error && <p class="error" role="alert">{error}</p>}
        {done && <p role="status">{done}</p>}
        <div class="actions">
          <button type="button" onClick={onClose}>Close</button>
          <button type="submit" class="primary">Share</button>
        </div>
      </form>
      {shares.length > 0 && (
        <>
          <h3>Shared with</h3>
          <ul class="list">
            {shares.map((s) => (
              <li key={s.id}>
                {s.granteeName} ({s.granteeEmail}) · {s.path} · {s.permission}{" "}
                <button
                  type="button"
                  onClick={() =>
                    void api(`/api/shares/${encodeURIComponent(s.id)}`, { method: "DELETE" }).then(load)}
                >
                  Stop sharing with {s.granteeName}
                </button>
              </li>
            ))}
          </ul>
        </>
      )}
    </Modal>
  );
}

export function SharingSection() {
  const [requests, setRequests] = useState<{ incoming: AccessRequest[]; outgoing: AccessRequest[] }>({
    incoming: [],
    outgoing: [],
  });
  const [shares, setShares] = useState<{ given: Share[]; received: Share[] }>({ given: [], received: [] });
  const [error, setError] = useState("");
  const [sent, setSent] = useState("");
  const load = () => {
    api<typeof requests>("/api/access-requests").then(setRequests, (e) => setError(messageOf(e)));
    api<typeof shares>("/api/shares").then(setShares, (e) => setError(messageOf(e)));
  };
  useEffect(load, []);
  const act = (p: Promise<unknown>) =>
    void p.then(() => (setError(""), load()), (e) => setError(messageOf(e)));
  const ask = async (e: Event) => {
    e.preventDefault();
    const formEl = e.currentTarget as HTMLFormElement;
    const form = new FormData(formEl);
    try {
      await api("/api/access-requests", {
        method: "POST",
        body: {
          ownerEmail: String(form.get("ownerEmail")),
          path: String(form.get("path")),
          permission: String(form.get("permission")),
          ...(form.get("message") ? { message: String(form.get("message")) } : {}),
        },
      });
      setSent("Request sent.");
      formEl.reset();
      load();
    } catch (err) {
      setSent("");
      setError(messageOf(err));
    }
  };
  const pending = requests.incoming.filter((r) => r.status === "pending");
  /** Approves (with a permission) or denies an access request. */
  const answer = (id: string, verdict: "approve" | "deny", body: { permission?: string }) =>
    act(api(`/api/access-requests/${encodeURIComponent(id)}/${verdict}`, { method: "POST", body }));
  return (
    <section class="card" aria-labelledby="sharing-h">
      <h2 id="sharing-h">Sharing</h2>
      {error && <p class="error" role="alert">{error}</p>}
      <h3>Access requests for you</h3>
      {pending.length === 0 && <p class="muted">None waiting.</p>}
      <ul class="list">
        {pending.map((r) => (
          <li key={r.id} class="request">
            <span>
              {r.requesterName} ({r.requesterEmail}) asks for {r.permission} access to <code>{r.path}</code>
              {r.message ? `: “${r.message}”` : ""}
            </span>
            <button type="button" onClick={() => answer(r.id, "approve", { permission: "read" })}>
              Allow reading
            </button>
            <button type="button" onClick={() => answer(r.id, "approve", { permission: "read-write" })}>
              Allow editing
            </button>
            <button type="button" onClick={() => answer(r.id, "deny", {})}>
              Deny
            </button>
          </li>
        ))}
      </ul>
      <h3>Ask for access</h3>
      <form class="inline" onSubmit={(e) => void ask(e)}>
        <label>
          Owner's email <input name="ownerEmail" type="email" required />
        </label>
        <label>
          Path <input name="path" required placeholder="Team/ or Team/plan.md" />
        </label>
        <label>
          Access{" "}
          <select name="permission">
            <option value="read">read</option>
            <option value="read-write">read and edit</option>
          </select>
        </label>
        <label>
          Message <input name="message" maxLength={500} />
        </label>
        <button type="submit">Send request</button>
      </form>
      {sent && <p role="status">{sent}</p>}
      {requests.outgoing.length > 0 && (
        <ul class="list">
          {requests.outgoing.map((r) => (
            <li key={r.id}>
              {r.ownerName} · <code>{r.path}</code> · {r.permission}: {r.status}
            </li>
          ))}
        </ul>
      )}
      <h3>Shared with me</h3>
      {shares.received.length === 0 && <p class="muted">Nothing yet.</p>}
      <ul class="list">
        {shares.received.map((s) => (
          <li key={s.id}>
            {s.ownerName} · <code>{s.path}</code> · {s.permission}{" "}
            <button
              type="button"
              onClick={() => act(api(`/api/shares/${encodeURIComponent(s.id)}`, { method: "DELETE" }))}
            >
              Leave {s.path}
            </button>
          </li>
        ))}
      </ul>
      <h3>Shared by me</h3>
      {shares.given.length === 0 && <p class="muted">Nothing yet.</p>}
      <ul class="list">
        {shares.given.map((s) => (
          <li key={s.id}>
            <code>{s.path}</code> with {s.granteeName} ({s.granteeEmail}) · {s.permission}{" "}
            <button
              type="button"
              onClick={() => act(api(`/api/shares/${encodeURIComponent(s.id)}`, { method: "DELETE" }))}
            >
              Stop sharing {s.path} with {s.granteeName}
            </button>
          </li>
        ))}
      </ul>
    </section>
  );
}
