/**
 * The rendered note. renderMarkdown's HTML is safe by construction; before it enters the page it is
 * parsed into an inert <template> (nothing loads or runs there) and our link policy is applied:
 * images load from this vault only (any other source becomes a plain link, so nothing is fetched
 * from another origin), links to other sites open in a new tab without a referrer, wiki-links open
 * notes in the app, and `![[note]]` embeds are filled with that note's preview, one level deep.
 */
import { useEffect, useRef } from "preact/hooks";
import { api, type Note, q } from "./api.ts";
import { renderMarkdown } from "./markdown.ts";

export interface PreviewProps {
  content: string;
  /** Resolves a wiki-link target to a note path, or undefined when no note has that name. */
  resolve: (target: string) => string | undefined;
  onOpen: (path: string) => void;
  owner?: string;
  /** An embed's preview: embeds inside it are not filled again. */
  nested?: boolean;
}

const sameOrigin = (url: string) => {
  try {
    return new URL(url, location.href).origin === location.origin;
  } catch {
    return false;
  }
};

function applyPolicy(root: DocumentFragment, resolve: PreviewProps["resolve"]) {
  for (const img of root.querySelectorAll("img")) {
    const src = img.getAttribute("src") ?? "";
    if (src && sameOrigin(src)) continue;
    const a = document.createElement("a");
    a.textContent = img.getAttribute("alt") || src || "image";
    if (src) a.href = src;
    a.className = "external-image";
    img.replaceWith(a);
  }
  // GFM task list items: name the checkbox for screen readers.
  for (const box of root.querySelectorAll<HTMLInputElement>('input[type="checkbox"]')) {
    box.setAttribute("aria-label", box.hasAttribute("checked") ? "done" : "to do");
  }
  for (const a of root.querySelectorAll("a[href]")) {
    if (a.classList.contains("wikilink")) {
      if (!resolve(a.getAttribute("data-note") ?? "")) a.classList.add("missing");
      continue;
    }
    const href = a.getAttribute("href") ?? "";
    if (!sameOrigin(href)) {
      a.setAttribute("target", "_blank");
      a.setAttribute("rel", "noopener noreferrer nofollow");
    }
  }
}

export function Preview({ content, resolve, onOpen, owner, nested }: PreviewProps) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    const tpl = document.createElement("template");
    tpl.innerHTML = renderMarkdown(content);
    applyPolicy(tpl.content, resolve);
    el.replaceChildren(tpl.content);
    if (nested) return;
    let stale = false;
    for (const span of el.querySelectorAll<HTMLElement>("span.embed")) {
      const path = resolve(span.dataset.embed ?? "");
      if (!path) {
        span.classList.add("missing");
        continue;
      }
      api<Note>(`/api/notes${q({ path, owner })}`).then((note) => {
        if (stale) return;
        const inner = document.createElement("template");
        inner.innerHTML = renderMarkdown(note.content).replace(
          /<span class="embed"/g,
          '<span class="embed nested"',
        );
        applyPolicy(inner.content, resolve);
        const box = document.createElement("div");
        box.className = "embed-box";
        box.append(inner.content);
        span.replaceChildren(box);
      }, () => span.classList.add("missing"));
    }
    return () => void (stale = true);
  }, [content, owner]);
  return (
    <div
      ref={ref}
      class="preview"
      onClick={(e) => {
        const a = (e.target as Element).closest("a.wikilink");
        if (!a) return;
        e.preventDefault();
        const target = a.getAttribute("data-note") ?? "";
        onOpen(resolve(target) ?? (target.endsWith(".md") ? target : `${target}.md`));
      }}
    />
  );
}
