/**
 * The CodeMirror 6 editor of a note: Markdown, line numbers (on unless the user turns them off),
 * wiki-link completion after `[[`, Mod-s to save, and, when editing together, the Yjs binding
 * (y-codemirror.next) that shows the others' cursors with their names.
 */
import { autocompletion, type CompletionContext, type CompletionResult } from "@codemirror/autocomplete";
import { defaultKeymap, history, historyKeymap, indentWithTab } from "@codemirror/commands";
import { markdownKeymap, markdownLanguage } from "@codemirror/lang-markdown";
import { HighlightStyle, LanguageSupport, syntaxHighlighting } from "@codemirror/language";
import { tags } from "@lezer/highlight";
import { highlightSelectionMatches, searchKeymap } from "@codemirror/search";
import { EditorState, type Extension, RangeSetBuilder, StateField } from "@codemirror/state";
import {
  Decoration,
  type DecorationSet,
  drawSelection,
  EditorView,
  highlightActiveLine,
  highlightActiveLineGutter,
  keymap,
  lineNumbers,
} from "@codemirror/view";
import { yCollab } from "y-codemirror.next";
import type { CollabSession } from "./collab.ts";
import { frontMatterLength } from "./editor_front_matter.ts";

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
  "&": { height: "100%", fontSize: "15px", backgroundColor: "var(--panel)", color: "var(--text)" },
  ".cm-scroller": { fontFamily: "var(--mono)", lineHeight: "1.6" },
  ".cm-content": { caretColor: "var(--text)" },
  ".cm-gutters": { backgroundColor: "var(--bg)", color: "var(--muted)", border: "none" },
  ".cm-activeLine": { backgroundColor: "var(--active-line)" },
  ".cm-activeLineGutter": { backgroundColor: "var(--active-line)" },
  "&.cm-focused .cm-cursor": { borderLeftColor: "var(--text)" },
  ".cm-frontmatter, .cm-frontmatter *": {
    color: "var(--muted)",
    fontWeight: "normal",
    fontStyle: "normal",
    textDecoration: "none",
  },
});

/**
 * Markdown's colours from the design system's tokens, so they hold in light and dark: marks (`#`,
 * `**`, `[[`, list bullets) are muted but readable, never the near-black that hid them in dark mode.
 */
export const markdownHighlight = HighlightStyle.define([
  { tag: tags.heading, fontWeight: "bold", color: "var(--text)" },
  { tag: tags.strong, fontWeight: "bold" },
  { tag: tags.emphasis, fontStyle: "italic" },
  { tag: tags.strikethrough, textDecoration: "line-through" },
  { tag: [tags.link, tags.url], color: "var(--accent)" },
  { tag: tags.monospace, color: "var(--code)" },
  { tag: tags.quote, color: "var(--muted)", fontStyle: "italic" },
  {
    tag: [tags.processingInstruction, tags.contentSeparator, tags.meta, tags.labelName],
    color: "var(--muted)",
  },
  { tag: tags.comment, color: "var(--muted)" },
]);

/**
 * Front matter is metadata: shown plain and muted, never as Markdown (its closing `---` would make the
 * line above it a heading).
 */
const frontMatterField = StateField.define<DecorationSet>({
  create: (state) => frontMatterDecorations(state.doc.toString()),
  update: (deco, tr) => (tr.docChanged ? frontMatterDecorations(tr.state.doc.toString()) : deco),
  provide: (f) => EditorView.decorations.from(f),
});

function frontMatterDecorations(text: string): DecorationSet {
  const end = frontMatterLength(text);
  const builder = new RangeSetBuilder<Decoration>();
  if (end > 0) builder.add(0, end, Decoration.mark({ class: "cm-frontmatter" }));
  return builder.finish();
}

export function createEditor(o: EditorOptions): EditorView {
  const extensions: Extension[] = [
    o.lineNumbers ? [lineNumbers(), highlightActiveLineGutter()] : [],
    drawSelection(),
    highlightActiveLine(),
    highlightSelectionMatches(),
    // GFM Markdown without markdown()'s embedded HTML/CSS/JS parsers (about 150 KB of the bundle).
    new LanguageSupport(markdownLanguage),
    syntaxHighlighting(markdownHighlight),
    frontMatterField,
    autocompletion({ override: [wikiLinkCompletion(o.noteNames)] }),
    EditorView.lineWrapping,
    // In the tab order even when read-only: a long line scrolls the editor sideways on a phone.
    EditorView.contentAttributes.of({ "aria-label": "Note text", tabindex: "0" }),
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
