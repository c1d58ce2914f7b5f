/**
 * Tells a user's open MCP sessions that their notes changed, as an MCP log message
 * (`notifications/message`, logger "vault") on each session's server-to-client stream, so an agent
 * learns of edits made elsewhere. `data` is `{kind, path, from?}` with the kinds of the event channel.
 */
import type { SessionRegistry } from "../../../internal/mcp/sessions.ts";
import type { NoteChange } from "../notes/mod.ts";

const KINDS = { created: "created", changed: "updated", deleted: "deleted", renamed: "renamed" } as const;

export function notifyNoteChange(registry: SessionRegistry, change: NoteChange): void {
  const sessions = registry.ofUser(change.userId);
  if (!sessions.length) return;
  const data = {
    kind: `${change.folder ? "folder" : "note"}.${KINDS[change.kind]}`,
    path: change.path,
    ...(change.from === undefined ? {} : { from: change.from }),
  };
  for (const s of sessions) {
    // A session without a GET stream has nowhere to receive it; that is not an error.
    void s.server.server.sendLoggingMessage({ level: "info", logger: "vault", data }).catch(() => {});
  }
}
