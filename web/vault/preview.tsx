/**
 * The rendered note. renderMarkdown's HTML is safe by construction; before it enters the page it is
 * parsed into an inert <template> (nothing loads or runs there) and our link policy is applied:
 * images load only when they are attachments of this vault that exist (`![[pic.png]]`, or a relative
 * `![](pic.png)`); any other source becomes a plain link, so nothing is fetched from another origin
 * and no request is made for a file that is not there; links to other sites open in a new tab without a referrer, wiki-links open
 * notes in the app, and `![[note]]` embeds are filled with that note's preview, one level deep.
 */
import { useEffect, useRef } from "preact/hooks";
import { api, type Note, q } from "./api.ts";
import { renderPreviewFences } from "./fence_renderers.ts";
import { attachmentSrc, renderMarkdown } from "./markdown.ts";
import { usePluginHost } from "./plugin_slots.tsx";

export interface PreviewProps {
  content: string;
  /** Resolves a wiki-link target to a note path, or undefined when no note has that name. */
  resolve: (target: string) => string | undefined;
  /** Resolves an image name to an attachment's path in the vault, or undefined when there is none. */
  resolveAttachment: (name: string) => string | undefined;
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

/** The vault path an image source names: an attachment URL's path, or a relative name. */
function imagePath(src: string): string | undefined {
  if (src.startsWith("/api/attachments?")) {
    return new URLSearchParams(src.slice(src.indexOf("?"))).get("path") ?? "";
  }
  if (/^[a-z][a-z0-9+.-]*:|^\/|^\\/i.test(src)) return undefined;
  try {
    return decodeURIComponent(src);
  } catch {
    return src;
  }
}

function applyPolicy(
  root: DocumentFragment,
  resolve: PreviewProps["resolve"],
  attachment: PreviewProps["resolveAttachment"],
) {
  for (const img of root.querySelectorAll("img")) {
    const src = img.getAttribute("src") ?? "";
    const path = imagePath(src);
    const found = path === undefined ? undefined : attachment(path);
    if (found) {
      img.setAttribute("src", attachmentSrc(found));
      img.setAttribute("loading", "lazy");
      continue;
    }
    // Not a file of this vault: show what it was, as a link only when it points somewhere else.
    const replacement = document.createElement(path === undefined && src ? "a" : "span");
    replacement.textContent = img.getAttribute("alt") || src || "image";
    replacement.className = path === undefined ? "external-image" : "missing-image";
    if (replacement instanceof HTMLAnchorElement) replacement.href = src;
    img.replaceWith(replacement);
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

export function Preview({ content, resolve, resolveAttachment, onOpen, owner, nested }: PreviewProps) {
  const ref = useRef<HTMLDivElement>(null);
  const plugins = usePluginHost();
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    const tpl = document.createElement("template");
    tpl.innerHTML = renderMarkdown(content);
    // Shared notes' attachments are the owner's, which the attachments API does not serve to others.
    const attachment = owner ? () => undefined : resolveAttachment;
    applyPolicy(tpl.content, resolve, attachment);
    el.replaceChildren(tpl.content);
    renderPreviewFences(plugins, el, content);
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
        applyPolicy(inner.content, resolve, attachment);
        const box = document.createElement("div");
        box.className = "embed-box";
        box.append(inner.content);
        span.replaceChildren(box);
      }, () => span.classList.add("missing"));
    }
    return () => void (stale = true);
  }, [content, owner, plugins.rendererGeneration]);
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
