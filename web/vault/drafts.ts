/**
 * Unsaved text kept in localStorage on every edit, so nothing typed is lost to a reload, a crash or a
 * network drop: a draft is dropped only once the server has the same text. On reopening a note whose
 * draft differs from what the server has, the editor offers it back.
 */
export interface Draft {
  content: string;
  /** The server version the draft was typed over (a stale one means someone else saved since). */
  baseVersion: string;
  savedAt: string;
}

const key = (userId: string, owner: string, path: string) => `vault.draft:${userId}:${owner}:${path}`;

export function loadDraft(userId: string, owner: string, path: string): Draft | undefined {
  try {
    const raw = localStorage.getItem(key(userId, owner, path));
    return raw ? JSON.parse(raw) as Draft : undefined;
  } catch {
    return undefined;
  }
}

export function saveDraft(userId: string, owner: string, path: string, draft: Draft) {
  try {
    localStorage.setItem(key(userId, owner, path), JSON.stringify(draft));
  } catch { /* storage full or off: the editor still holds the text */ }
}

export function dropDraft(userId: string, owner: string, path: string) {
  localStorage.removeItem(key(userId, owner, path));
}
