/**
 * A note's editor beside its preview (when shown): the layout the note editor and its mirror in the
 * other pane share, and the settings and lookups the workspace gives every note editor.
 */
import type { RefObject } from "preact";
import { Preview } from "./preview.tsx";
import type { Tab } from "./tabs.ts";

/** What the workspace passes down to show a note: the editor's settings and the link lookups. */
export interface NoteViewProps {
  lineNumbers: boolean;
  showPreview: boolean;
  noteNames: () => string[];
  resolve: (target: string) => string | undefined;
  resolveAttachment: (name: string) => string | undefined;
}

export function EditorPanes(
  p: Pick<NoteViewProps, "showPreview" | "resolve" | "resolveAttachment"> & {
    /** Where the editor mounts its view. */
    host: RefObject<HTMLDivElement | null>;
    /** What the preview renders. */
    text: string;
    tab: Tab;
    onOpen: (path: string) => void;
  },
) {
  return (
    <div class={p.showPreview ? "panes split" : "panes"}>
      <div class="editor-host" ref={p.host} />
      {p.showPreview && (
        <Preview
          content={p.text}
          resolve={p.resolve}
          resolveAttachment={p.resolveAttachment}
          onOpen={p.onOpen}
          {...(p.tab.owner ? { owner: p.tab.owner } : {})}
        />
      )}
    </div>
  );
}
