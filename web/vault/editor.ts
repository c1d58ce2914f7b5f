/**
 * The CodeMirror 6 editor of a note: Markdown, line numbers (on unless the user turns them off),
 * wiki-link completion after `[[`, Mod-s to save, and, when editing together, the Yjs binding
 * (y-codemirror.next) that shows the others' cursors with their names.
 */
import { autocompletion, type CompletionContext, type CompletionResult } from "@codemirror/autocomplete";
import { defaultKeymap, history, historyKeymap, indentWithTab } from "@codemirror/commands";
import { markdownKeymap, markdownLanguage } from "@codemirror/lang-markdown";
import { defaultHighlightStyle, LanguageSupport, syntaxHighlighting } from "@codemirror/language";
import { highlightSelectionMatches, searchKeymap } from "@codemirror/search";
import { EditorState, type Extension } from "@codemirror/state";
import {
  drawSelection,
  EditorView,
  highlightActiveLine,
  highlightActiveLineGutter,
  keymap,
  lineNumbers,
} from "@codemirror/view";
import { yCollab } from "y-codemirror.next";
import type { CollabSession } from "./collab.ts";

export interface EditorOptions {
  parent: HTMLElement;
  /** The text to start with (ignored when editing together: the shared document's text wins). */
  doc: string;
  lineNumbers: boolean;
  readOnly: boolean;
  /** Note names offered after `[[`. */
  noteNames: () => string[];
  onChange: (text: string) => void;
  onSave: () => void;
  collab?: CollabSession;
  /** More extensions (plugins' fence widgets; a second pane's view of the same note links the two). */
  extensions?: Extension[];
}

/** Completes `[[partial` with the vault's note names (without .md), closing the link. */
export function wikiLinkCompletion(noteNames: () => string[]) {
  return (context: CompletionContext): CompletionResult | null => {
    const before = context.matchBefore(/\[\[[^\]\n|#]*/);
    if (!before) return null;
    return {
      from: before.from + 2,
      options: noteNames().map((name) => ({ label: name, type: "text", apply: `${name}]]` })),
      validFor: /^[^\]\n|#]*$/,
    };
  };
}

const theme = EditorView.theme({
  "&": { height: "100%", fontSize: "15px", backgroundColor: "var(--bg)", color: "var(--fg)" },
  ".cm-scroller": { fontFamily: "var(--mono)", lineHeight: "1.6" },
  ".cm-content": { caretColor: "var(--fg)" },
  ".cm-gutters": { backgroundColor: "var(--bg-2)", color: "var(--muted)", border: "none" },
  ".cm-activeLine": { backgroundColor: "var(--active-line)" },
  ".cm-activeLineGutter": { backgroundColor: "var(--active-line)" },
  "&.cm-focused .cm-cursor": { borderLeftColor: "var(--fg)" },
});

export function createEditor(o: EditorOptions): EditorView {
  const extensions: Extension[] = [
    o.lineNumbers ? [lineNumbers(), highlightActiveLineGutter()] : [],
    drawSelection(),
    highlightActiveLine(),
    highlightSelectionMatches(),
    // GFM Markdown without markdown()'s embedded HTML/CSS/JS parsers (about 150 KB of the bundle).
    new LanguageSupport(markdownLanguage),
    syntaxHighlighting(defaultHighlightStyle, { fallback: true }),
    autocompletion({ override: [wikiLinkCompletion(o.noteNames)] }),
    EditorView.lineWrapping,
    EditorView.contentAttributes.of({ "aria-label": "Note text" }),
    EditorState.readOnly.of(o.readOnly),
    keymap.of([
      { key: "Mod-s", preventDefault: true, run: () => (o.onSave(), true) },
      ...markdownKeymap,
      indentWithTab,
      ...defaultKeymap,
      ...searchKeymap,
      ...(o.collab ? [] : historyKeymap),
    ]),
    o.collab ? yCollab(o.collab.text, o.collab.awareness) : history(),
    EditorView.updateListener.of((u) => {
      if (u.docChanged) o.onChange(u.state.doc.toString());
    }),
    theme,
    o.extensions ?? [],
  ];
  return new EditorView({
    parent: o.parent,
    state: EditorState.create({ doc: o.collab ? o.collab.text.toString() : o.doc, extensions }),
  });
}

/** Replaces the whole text (a restored draft, the server's version after a conflict). */
export function setText(view: EditorView, text: string) {
  view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text } });
}
