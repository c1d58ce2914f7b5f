/**
 * One open note: the editor, its preview, and saving. Saving goes through PUT /api/notes with the
 * version the text was typed over: a 409 shows a conflict message and keeps the user's text (they
 * choose to overwrite or to take the other version). Every edit is also kept as a local draft until
 * the server has it, so a reload or a network drop loses nothing; a draft found on opening is
 * offered back. "Edit together" (the default) binds the editor to the note's shared Yjs document
 * instead (the server writes it back), with the others' cursors and AI agents shown by name; edits
 * made while its socket is down are kept as a draft too, and a note whose socket cannot sync opens
 * in the saving mode above (so a change made through the API meanwhile still meets the 409).
 */
import type { EditorView } from "@codemirror/view";
import { useEffect, useRef, useState } from "preact/hooks";
import { api, ApiError, type Me, type Note, q, saveNote } from "./api.ts";
import { CollabSession, type Presence } from "./collab.ts";
import { dropDraft, loadDraft, saveDraft } from "./drafts.ts";
import { createEditor, setText } from "./editor.ts";
import { joinGroup, linkedEditing, noteKey } from "./linked_views.ts";
import { fenceBodyChange, fenceWidgets } from "./fence_renderers.ts";
import { pluginHost } from "./plugin_host.ts";
import { EditorPanes, type NoteViewProps } from "./editor_panes.tsx";
import { ShareDialog } from "./sharing.tsx";
import type { Tab } from "./tabs.ts";

const AUTOSAVE_MS = 1500;
const RETRY_MS = 5000;
/** How long a note waits for its live session's first sync before opening in the saving mode. */
const LIVE_WAIT_MS = 4000;

type SaveState =
  | { kind: "loading" }
  | { kind: "saved" }
  | { kind: "dirty" }
  | { kind: "saving" }
  | { kind: "offline" }
  | { kind: "conflict"; currentVersion: string }
  | { kind: "error"; message: string };

export interface NoteEditorProps extends NoteViewProps {
  tab: Tab;
  me: Me;
  hidden: boolean;
  live: boolean;
  onOpen: (path: string) => void;
  /** Bumped when a live event says the note changed elsewhere. */
  remoteChange: number;
}

export function NoteEditor(p: NoteEditorProps) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | undefined>(undefined);
  const version = useRef("");
  const textRef = useRef("");
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  const [state, setState] = useState<SaveState>({ kind: "loading" });
  const [text, setTextState] = useState("");
  const [readOnly, setReadOnly] = useState(false);
  const readOnlyRef = useRef(false);
  readOnlyRef.current = readOnly;
  const [offered, setOffered] = useState<{ content: string; baseVersion: string; savedAt: string }>();
  const [presences, setPresences] = useState<Presence[]>([]);
  const [liveStatus, setLiveStatus] = useState("");
  const [sharing, setSharing] = useState(false);
  const owner = p.tab.owner ?? p.me.id;
  const stateRef = useRef(state);
  stateRef.current = state;
  // No live sync within LIVE_WAIT_MS: this note is edited in the saving mode until it is reopened.
  const [fallback, setFallback] = useState(false);
  const live = p.live && !fallback;
  const liveRef = useRef(live);
  liveRef.current = live;
  const sessionRef = useRef<CollabSession | undefined>(undefined);

  const save = async (ifVersion = version.current) => {
    if (liveRef.current) return;
    clearTimeout(timer.current);
    const content = textRef.current;
    setState({ kind: "saving" });
    try {
      const saved = await saveNote(p.tab, content, ifVersion);
      version.current = saved;
      pluginHost.noteSaved(p.tab.path, p.tab.owner, saved);
      if (textRef.current === content) {
        dropDraft(p.me.id, owner, p.tab.path);
        setState({ kind: "saved" });
      } else {
        saveDraft(p.me.id, owner, p.tab.path, {
          content: textRef.current,
          baseVersion: saved,
          savedAt: new Date().toISOString(),
        });
        setState({ kind: "dirty" });
        timer.current = setTimeout(() => void save(), AUTOSAVE_MS);
      }
    } catch (err) {
      if (err instanceof ApiError && err.status === 409) {
        setState({ kind: "conflict", currentVersion: String(err.body.currentVersion ?? "") });
      } else if (err instanceof ApiError && !err.offline) {
        setState({ kind: "error", message: err.message });
      } else {
        // No answer: the network is down. The draft holds the text; try again later.
        setState({ kind: "offline" });
        timer.current = setTimeout(() => void save(), RETRY_MS);
      }
    }
  };
  const saveRef = useRef(save);
  saveRef.current = save;

  const edited = (next: string) => {
    textRef.current = next;
    setTextState(next);
    if (liveRef.current) {
      // The socket is down: the shared document holds the edit until it reconnects, but a reload
      // would drop it, so it is kept on this device too (dropped once the session is live again).
      if (sessionRef.current?.status !== "live") {
        saveDraft(p.me.id, owner, p.tab.path, {
          content: next,
          baseVersion: version.current,
          savedAt: new Date().toISOString(),
        });
      }
      return;
    }
    saveDraft(p.me.id, owner, p.tab.path, {
      content: next,
      baseVersion: version.current,
      savedAt: new Date().toISOString(),
    });
    if (stateRef.current.kind === "conflict") return;
    setState({ kind: "dirty" });
    clearTimeout(timer.current);
    timer.current = setTimeout(() => void saveRef.current(), AUTOSAVE_MS);
  };

  // Load the note and build the editor (again when switching between saving and editing together).
  useEffect(() => {
    let session: CollabSession | undefined;
    let cancelled = false;
    let leave: (() => void) | undefined;
    let giveUp: ReturnType<typeof setTimeout> | undefined;
    const key = noteKey(owner, p.tab.path);
    const offerDraft = (content: string) => {
      const draft = loadDraft(p.me.id, owner, p.tab.path);
      if (draft && draft.content !== content) setOffered(draft);
      else if (draft) dropDraft(p.me.id, owner, p.tab.path);
    };
    setState({ kind: "loading" });
    api<Note>(`/api/notes${q({ path: p.tab.path, owner: p.tab.owner })}`).then(async (note) => {
      if (cancelled || !host.current) return;
      version.current = note.version;
      textRef.current = note.content;
      setTextState(note.content);
      let ro = false;
      if (p.tab.owner) {
        const shares = await api<{ received: { ownerId: string; path: string; permission: string }[] }>(
          "/api/shares",
        ).catch(() => ({ received: [] }));
        ro = !shares.received.some((s) =>
          s.ownerId === p.tab.owner && s.permission === "read-write" &&
          (s.path === p.tab.path || (s.path.endsWith("/") && p.tab.path.startsWith(s.path)))
        );
      }
      if (cancelled || !host.current) return;
      setReadOnly(ro);
      if (live) {
        session = new CollabSession(p.tab.path, p.tab.owner, { id: p.me.id, name: p.me.name });
        sessionRef.current = session;
        const s = session;
        giveUp = setTimeout(() => !cancelled && !s.synced && setFallback(true), LIVE_WAIT_MS);
        let wasOffline = false;
        s.onChange(() => {
          // destroy() itself reports (our presence leaves): nothing may be built after the cleanup.
          if (cancelled) return;
          setPresences(s.presences());
          setLiveStatus(s.status);
          if (s.status === "offline") wasOffline = true;
          if (s.synced && !view.current && host.current) {
            clearTimeout(giveUp);
            view.current = createEditor({
              parent: host.current,
              doc: "",
              lineNumbers: p.lineNumbers,
              readOnly: ro,
              noteNames: p.noteNames,
              onChange: edited,
              onSave: () => {},
              collab: s,
              extensions: [linkedEditing(key), fenceWidgets(pluginHost)],
            });
            leave = joinGroup(key, view.current, true);
            textRef.current = s.text.toString();
            setTextState(textRef.current);
            setState({ kind: "saved" });
            offerDraft(textRef.current);
          } else if (s.status === "live" && wasOffline) {
            // Synced again: the edits made offline are in the shared document now.
            wasOffline = false;
            dropDraft(p.me.id, owner, p.tab.path);
          }
        });
        return;
      }
      view.current = createEditor({
        parent: host.current,
        doc: note.content,
        lineNumbers: p.lineNumbers,
        readOnly: ro,
        noteNames: p.noteNames,
        onChange: edited,
        onSave: () => void saveRef.current(),
        extensions: [linkedEditing(key), fenceWidgets(pluginHost)],
      });
      leave = joinGroup(key, view.current, true);
      setState({ kind: "saved" });
      offerDraft(note.content);
    }, (err) => {
      if (!cancelled) setState({ kind: "error", message: err instanceof Error ? err.message : String(err) });
    });
    return () => {
      cancelled = true;
      clearTimeout(timer.current);
      clearTimeout(giveUp);
      leave?.();
      view.current?.destroy();
      view.current = undefined;
      session?.destroy();
      sessionRef.current = undefined;
      setPresences([]);
    };
  }, [p.tab.path, p.tab.owner, live, p.lineNumbers]);

  // A change made elsewhere: take it when nothing is unsaved here; otherwise the save will conflict.
  // Editing together, the server writes the shared text back itself: its event is the save plugins hear
  // of (read only when a plugin is loaded to hear it).
  useEffect(() => {
    if (!p.remoteChange) return;
    if (live) {
      if (!pluginHost.active) return;
      api<Note>(`/api/notes${q({ path: p.tab.path, owner: p.tab.owner })}`).then(
        (note) => pluginHost.noteSaved(p.tab.path, p.tab.owner, note.version),
        () => {},
      );
      return;
    }
    if (stateRef.current.kind !== "saved") return;
    api<Note>(`/api/notes${q({ path: p.tab.path, owner: p.tab.owner })}`).then((note) => {
      if (stateRef.current.kind !== "saved" || note.version === version.current || !view.current) return;
      version.current = note.version;
      setText(view.current, note.content);
      setState({ kind: "saved" });
      pluginHost.noteSaved(p.tab.path, p.tab.owner, note.version);
    }, () => {});
  }, [p.remoteChange]);

  // The visible note is the one plugins save and edit (api.notes).
  useEffect(() => {
    if (p.hidden) return;
    const bridge = {
      save: () => saveRef.current(),
      replaceFence: (range: { from: number; to: number }, body: string) => {
        const v = view.current;
        if (!v || readOnlyRef.current) throw new Error("the open note cannot be edited");
        const change = fenceBodyChange(v.state.doc.toString(), range, body);
        if (!change) throw new Error("no code fence starts at that range");
        v.dispatch({ changes: change });
      },
    };
    pluginHost.note = bridge;
    return () => void (pluginHost.note === bridge && (pluginHost.note = undefined));
  }, [p.hidden]);

  useEffect(() => {
    const online = () => {
      if (stateRef.current.kind === "offline") void saveRef.current();
    };
    addEventListener("online", online);
    return () => removeEventListener("online", online);
  }, []);

  const status = {
    loading: "Loading…",
    saved: live ? "" : "Saved",
    dirty: "Unsaved changes",
    saving: "Saving…",
    offline: "Offline: kept on this device, will save when back",
    conflict: "Conflict",
    error: "Not saved",
  }[state.kind];

  return (
    <section class="note" hidden={p.hidden} aria-label={`Note ${p.tab.path}`}>
      <div class="note-bar">
        <span class="note-path">{p.tab.path}{readOnly ? " (read only)" : ""}</span>
        {p.live && fallback && (
          <span
            class="muted"
            title="The live connection did not answer: each change is saved as a new version"
          >
            not live
          </span>
        )}
        {live && (
          <span class="presence" aria-live="polite">
            <span
              class={`live-dot ${liveStatus}`}
              title={`editing together: ${liveStatus || "connecting"}`}
            />
            {presences.map((u) => (
              <span
                key={u.clientId}
                class={u.kind === "agent" ? "pill agent" : "pill"}
                style={{ borderColor: u.color, color: u.color }}
                title={u.kind === "agent" ? `AI agent ${u.name} is editing` : `${u.name} is editing`}
              >
                {u.kind === "agent" ? "AI · " : ""}
                {u.name}
              </span>
            ))}
          </span>
        )}
        <span class="save-state" role="status">{status}</span>
        {!live && !readOnly && (
          <button
            type="button"
            class="small"
            onClick={() => void save()}
            disabled={state.kind === "saving"}
          >
            Save
          </button>
        )}
        {!p.tab.owner && <button type="button" class="small" onClick={() => setSharing(true)}>Share</button>}
      </div>
      {sharing && <ShareDialog path={p.tab.path} onClose={() => setSharing(false)} />}
      {offered && (
        <div class="banner" role="alert">
          Unsaved text from {new Date(offered.savedAt).toLocaleString()} was kept on this device.
          <button
            type="button"
            onClick={() => {
              if (view.current) setText(view.current, offered.content);
              // Typed over an older version? Then saving it must conflict, not overwrite.
              version.current = offered.baseVersion;
              setOffered(undefined);
            }}
          >
            Restore it
          </button>
          <button
            type="button"
            onClick={() => {
              dropDraft(p.me.id, owner, p.tab.path);
              setOffered(undefined);
            }}
          >
            Discard it
          </button>
        </div>
      )}
      {state.kind === "conflict" && (
        <div class="banner conflict" role="alert">
          Someone else saved this note since you opened it. Your text is still here, not saved.
          <button type="button" onClick={() => void save(state.currentVersion)}>Save mine over theirs</button>
          <button
            type="button"
            onClick={async () => {
              const note = await api<Note>(`/api/notes${q({ path: p.tab.path, owner: p.tab.owner })}`);
              version.current = note.version;
              if (view.current) setText(view.current, note.content);
              dropDraft(p.me.id, owner, p.tab.path);
              setState({ kind: "saved" });
            }}
          >
            Load theirs (drops mine)
          </button>
        </div>
      )}
      {state.kind === "error" && <div class="banner conflict" role="alert">{state.message}</div>}
      <EditorPanes host={host} text={text} {...p} />
    </section>
  );
}
