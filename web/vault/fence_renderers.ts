/**
 * Code fences rendered by plugins (api.markdown.registerCodeFenceRenderer). The preview replaces a
 * fence of a registered language with the plugin's output (`interactive` false); the editor shows it
 * as a block widget under the fence's source (`interactive` true), so the text stays editable and the
 * plugin edits it through replaceFenceAtRange. Both pass the fence's `rawRange` in the note's text.
 */
import { type EditorState, type Extension, StateEffect, StateField } from "@codemirror/state";
import { Decoration, type DecorationSet, EditorView, ViewPlugin, WidgetType } from "@codemirror/view";
import { type FenceRender, type PluginHost, type RawRange } from "./plugin_host.ts";

export interface Fence {
  /** The info string's first word, lower-cased. */
  lang: string;
  /** The opening line's start to the closing line's end (the document's end when never closed). */
  from: number;
  to: number;
  /** The body: the line after the opening one to the start of the closing one. */
  bodyFrom: number;
  bodyTo: number;
  closed: boolean;
  source: string;
}

const OPEN = /^ {0,3}(`{3,}|~{3,})(.*)$/;
const CLOSE = /^ {0,3}(`{3,}|~{3,})[ \t]*$/;

/** The top-level fenced code blocks of a Markdown text (CommonMark's rules for fences). */
export function findFences(text: string): Fence[] {
  const fences: Fence[] = [];
  let open: { char: string; size: number; from: number; bodyFrom: number; lang: string } | undefined;
  let pos = 0;
  for (const line of text.split("\n")) {
    const end = pos + line.length;
    if (!open) {
      const m = OPEN.exec(line);
      // A backtick fence's info string holds no backtick (that is inline code).
      if (m && !(m[1]![0] === "`" && m[2]!.includes("`"))) {
        const lang = m[2]!.trim().split(/\s+/)[0]!.toLowerCase();
        open = {
          char: m[1]![0]!,
          size: m[1]!.length,
          from: pos,
          bodyFrom: Math.min(end + 1, text.length),
          lang,
        };
      }
    } else {
      const m = CLOSE.exec(line);
      if (m && m[1]![0] === open.char && m[1]!.length >= open.size) {
        fences.push({
          lang: open.lang,
          from: open.from,
          to: end,
          bodyFrom: open.bodyFrom,
          bodyTo: pos,
          closed: true,
          source: text.slice(open.bodyFrom, Math.max(open.bodyFrom, pos - 1)),
        });
        open = undefined;
      }
    }
    pos = end + 1;
  }
  if (open) {
    fences.push({
      lang: open.lang,
      from: open.from,
      to: text.length,
      bodyFrom: open.bodyFrom,
      bodyTo: text.length,
      closed: false,
      source: text.slice(open.bodyFrom).replace(/\n$/, ""),
    });
  }
  return fences;
}

/** The change that makes `body` the fence's body, or undefined when no fence starts at `range.from`. */
export function fenceBodyChange(
  text: string,
  range: RawRange,
  body: string,
): { from: number; to: number; insert: string } | undefined {
  const fence = findFences(text).find((f) => f.from === range.from);
  if (!fence) return undefined;
  const prefix = fence.bodyFrom > fence.from && text[fence.bodyFrom - 1] !== "\n" ? "\n" : "";
  const trimmed = body.replace(/\n$/, "");
  return {
    from: fence.bodyFrom,
    to: fence.bodyTo,
    insert: prefix + trimmed + (fence.closed ? "\n" : ""),
  };
}

/** Runs a renderer into `el`; a renderer that throws leaves the fence's source, and its failure noted. */
function renderInto(
  host: PluginHost,
  lang: string,
  entry: { plugin: string; render: FenceRender },
  source: string,
  el: HTMLElement,
  options: { interactive: boolean; rawRange: RawRange | undefined },
) {
  el.className = options.interactive ? "plugin-fence interactive" : "plugin-fence";
  el.dataset.lang = lang;
  try {
    const out = entry.render(source, el, options);
    if (out instanceof Promise) out.catch((err) => host.fail(entry.plugin, err, `rendering a ${lang} fence`));
  } catch (err) {
    host.fail(entry.plugin, err, `rendering a ${lang} fence`);
    const pre = document.createElement("pre");
    pre.textContent = source;
    el.replaceChildren(pre);
  }
}

/** In a rendered preview: fences of registered languages become their plugins' output. */
export function renderPreviewFences(host: PluginHost, root: HTMLElement, content: string) {
  if (host.renderers.size === 0) return;
  const fences = findFences(content);
  const used = new Set<Fence>();
  for (const code of root.querySelectorAll<HTMLElement>('pre > code[class^="language-"]')) {
    const lang = code.className.slice("language-".length).split(" ")[0]!.toLowerCase();
    const entry = host.renderers.get(lang);
    if (!entry) continue;
    const source = (code.textContent ?? "").replace(/\n$/, "");
    const fence = fences.find((f) => !used.has(f) && f.lang === lang && f.source === source);
    if (fence) used.add(fence);
    const box = document.createElement("div");
    code.parentElement!.replaceWith(box);
    renderInto(host, lang, entry, source, box, {
      interactive: false,
      rawRange: fence ? { from: fence.from, to: fence.to } : undefined,
    });
  }
}

class FenceWidget extends WidgetType {
  constructor(
    readonly host: PluginHost,
    readonly fence: Fence,
    readonly generation: number,
  ) {
    super();
  }
  override eq(other: FenceWidget) {
    return other.fence.source === this.fence.source && other.fence.from === this.fence.from &&
      other.fence.to === this.fence.to && other.generation === this.generation;
  }
  toDOM(view: EditorView) {
    const el = document.createElement("div");
    // Select-all in an editable part of the output selects that part, not the whole note around it.
    el.addEventListener("keydown", (e) => {
      const target = e.target as HTMLElement;
      if (e.key.toLowerCase() !== "a" || !(e.ctrlKey || e.metaKey) || !target.isContentEditable) return;
      e.preventDefault();
      getSelection()?.selectAllChildren(target);
    });
    const entry = this.host.renderers.get(this.fence.lang);
    if (entry) {
      renderInto(this.host, this.fence.lang, entry, this.fence.source, el, {
        // A read-only note (shared for reading) gets the static output, as the preview does.
        interactive: !view.state.readOnly,
        rawRange: { from: this.fence.from, to: this.fence.to },
      });
    }
    return el;
  }
  // The plugin's output handles its own events (a table's editable cells), not the editor.
  override ignoreEvent() {
    return true;
  }
}

const refresh = StateEffect.define<null>();

/** The editor's extension: a block widget with the plugin's output under each rendered fence. */
export function fenceWidgets(host: PluginHost): Extension {
  const build = (state: EditorState): DecorationSet => {
    if (host.renderers.size === 0) return Decoration.none;
    const text = state.doc.toString();
    return Decoration.set(
      findFences(text).filter((f) => host.renderers.has(f.lang)).map((f) =>
        Decoration.widget({ widget: new FenceWidget(host, f, host.rendererGeneration), block: true, side: 1 })
          .range(f.to)
      ),
    );
  };
  const field = StateField.define<DecorationSet>({
    create: build,
    update: (deco, tr) => (tr.docChanged || tr.effects.some((e) => e.is(refresh)) ? build(tr.state) : deco),
    provide: (f) => EditorView.decorations.from(f),
  });
  // Renderers come and go as plugins load: the widgets follow (after the current update, never inside it).
  const follow = ViewPlugin.define((view) => {
    let seen = host.rendererGeneration;
    let live = true;
    const stop = host.subscribe(() => {
      if (host.rendererGeneration === seen) return;
      seen = host.rendererGeneration;
      queueMicrotask(() => live && view.dispatch({ effects: refresh.of(null) }));
    });
    return { destroy: () => (live = false, stop()) };
  });
  return [field, follow];
}
