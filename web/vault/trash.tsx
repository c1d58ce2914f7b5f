/** The trash: deleted files, newest first, to restore where they were or delete for good. */
import { useState } from "preact/hooks";
import { api } from "./api.ts";
import { useApiValue } from "./use_api.ts";
import { Modal } from "../shared/modal.tsx";

interface TrashEntry {
  id: string;
  path: string;
  deletedAt: string;
  size: number;
}

export function TrashDialog({ onClose, onRestored }: { onClose: () => void; onRestored: () => void }) {
  const [error, setError] = useState("");
  const [entries, load] = useApiValue<{ entries: TrashEntry[] }, TrashEntry[] | undefined>(
    "/api/trash",
    (r) => r.entries,
    undefined,
    setError,
  );
  const act = (p: Promise<unknown>, after: () => void) =>
    void p.then(
      () => (setError(""), load(), after()),
      (e) => setError(e instanceof Error ? e.message : String(e)),
    );
  return (
    <Modal title="Trash" onClose={onClose}>
      {error && <p class="error" role="alert">{error}</p>}
      {entries?.length === 0 && <p class="muted">The trash is empty.</p>}
      <ul class="list">
        {entries?.map((t) => (
          <li key={t.id}>
            <code>{t.path}</code> <span class="muted">{new Date(t.deletedAt).toLocaleString()}</span>
            <button
              type="button"
              onClick={() =>
                act(api(`/api/trash/${encodeURIComponent(t.id)}/restore`, { method: "POST" }), onRestored)}
            >
              Restore {t.path}
            </button>
            <button
              type="button"
              onClick={() =>
                act(api(`/api/trash/${encodeURIComponent(t.id)}`, { method: "DELETE" }), () => {})}
            >
              Delete {t.path} for good
            </button>
          </li>
        ))}
      </ul>
      <div class="actions">
        <button type="button" class="primary" onClick={onClose}>Close</button>
      </div>
    </Modal>
  );
}
