/**
 * A note shown in the second pane while the first pane has it open too: a second editor view of the
 * same text (linked_views.ts), with its own preview, and no saving of its own — the first pane's
 * editor saves, keeps the draft and holds the live session, so the two never disagree.
 */
import type { EditorView } from "@codemirror/view";
import { EditorState } from "@codemirror/state";
import { useEffect, useRef, useState } from "preact/hooks";
import { createEditor } from "./editor.ts";
import { joinGroup, linkedEditing, noteKey, primaryView, watchGroup } from "./linked_views.ts";
import { EditorPanes, type NoteViewProps } from "./editor_panes.tsx";
import type { Tab } from "./tabs.ts";

export interface MirrorEditorProps extends NoteViewProps {
  tab: Tab;
  owner: string;
  hidden: boolean;
  onOpen: (path: string) => void;
}

export function MirrorEditor(p: MirrorEditorProps) {
  const host = useRef<HTMLDivElement>(null);
  const [text, setText] = useState("");
  const [ready, setReady] = useState(false);
  const key = noteKey(p.owner, p.tab.path);

  useEffect(() => {
    let view: EditorView | undefined;
    let from: EditorView | undefined;
    let leave: (() => void) | undefined;
    const build = () => {
      const primary = primaryView(key);
      if (primary === from) return;
      leave?.();
      view?.destroy();
      view = undefined;
      from = primary;
      setReady(!!primary);
      if (!primary || !host.current) return;
      view = createEditor({
        parent: host.current,
        doc: primary.state.doc.toString(),
        lineNumbers: p.lineNumbers,
        readOnly: primary.state.facet(EditorState.readOnly),
        noteNames: p.noteNames,
        onChange: setText,
        onSave: () => {},
        extensions: [linkedEditing(key)],
      });
      setText(view.state.doc.toString());
      leave = joinGroup(key, view);
    };
    const unwatch = watchGroup(key, build);
    build();
    return () => {
      unwatch();
      leave?.();
      view?.destroy();
    };
  }, [key, p.lineNumbers]);

  return (
    <section class="note mirror" hidden={p.hidden} aria-label={`Note ${p.tab.path}`}>
      <div class="note-bar">
        <span class="note-path">{p.tab.path}</span>
        <span class="save-state" role="status">{ready ? "Also open in the other pane" : "Loading…"}</span>
      </div>
      <EditorPanes host={host} text={text} {...p} />
    </section>
  );
}
