/**
 * One note shown in both panes: the pane that opened it first has the note's editor (its saving,
 * draft and live session); the other shows a second CodeMirror view of the same text. Every view of
 * a note joins its group, and each change made in one view is applied to the others (CodeMirror's
 * split-view pattern), so there is one text, one draft and one save state per note.
 */
import { Annotation, type Extension } from "@codemirror/state";
import { EditorView } from "@codemirror/view";

const mirrored = Annotation.define<boolean>();
const groups = new Map<string, Set<EditorView>>();
const primaries = new Map<string, EditorView>();
const watchers = new Map<string, Set<() => void>>();

export const noteKey = (owner: string, path: string) => `${owner}\u0000${path}`;

/** Passes this view's own changes to the other views of note `key`. */
export function linkedEditing(key: string): Extension {
  return EditorView.updateListener.of((u) => {
    if (!u.docChanged || u.transactions.every((t) => t.annotation(mirrored))) return;
    for (const other of groups.get(key) ?? []) {
      if (other !== u.view) other.dispatch({ changes: u.changes, annotations: mirrored.of(true) });
    }
  });
}

/** Adds a view to note `key`'s group (`primary`: the note editor's own); returns how to leave it. */
export function joinGroup(key: string, view: EditorView, primary = false): () => void {
  const set = groups.get(key) ?? new Set();
  groups.set(key, set);
  set.add(view);
  if (primary) primaries.set(key, view);
  notify(key);
  return () => {
    set.delete(view);
    if (set.size === 0) groups.delete(key);
    if (primaries.get(key) === view) primaries.delete(key);
    notify(key);
  };
}

/** The note editor's view of `key`, whose text a second view starts from. */
export function primaryView(key: string): EditorView | undefined {
  return primaries.get(key);
}

/** Calls `fn` whenever views of `key` come or go. */
export function watchGroup(key: string, fn: () => void): () => void {
  const set = watchers.get(key) ?? new Set();
  watchers.set(key, set);
  set.add(fn);
  return () => void set.delete(fn);
}

function notify(key: string) {
  for (const fn of watchers.get(key) ?? []) fn();
}
