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
import { type PropertyValue, splitFrontMatter } from "./front_matter.ts";
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

/** The event a tag chip sends; the app's search listens for it (main.tsx). */
export const SEARCH_TAG_EVENT = "vault:search-tag";

// Obsidian's body tags (server/vault/notes/tags.ts): after a start, a space, `,` or `;`; not only digits.
const BODY_TAG = /(^|[\s,;])#([\p{L}\p{N}\p{M}_\/-]*[\p{L}\p{M}_-][\p{L}\p{N}\p{M}_\/-]*)/gu;

function tagChip(tag: string): HTMLButtonElement {
  const b = document.createElement("button");
  b.type = "button";
  b.className = "tag-chip";
  b.dataset.tag = tag;
  b.textContent = `#${tag}`;
  b.setAttribute("aria-label", `Search tag ${tag}`);
  return b;
}

/** `#tag` in the text (not in code or links) becomes a chip that searches for the tag. */
function tagChips(root: DocumentFragment) {
  const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT, {
    acceptNode: (n) =>
      n.parentElement?.closest("code, pre, a, button") || !n.nodeValue?.includes("#")
        ? NodeFilter.FILTER_REJECT
        : NodeFilter.FILTER_ACCEPT,
  });
  const texts: Text[] = [];
  while (walker.nextNode()) texts.push(walker.currentNode as Text);
  for (const text of texts) {
    const value = text.nodeValue ?? "";
    const parts: (string | HTMLButtonElement)[] = [];
    let last = 0;
    for (const m of value.matchAll(BODY_TAG)) {
      const at = m.index! + m[1]!.length;
      parts.push(value.slice(last, at), tagChip(m[2]!.replace(/\/+$/, "")));
      last = at + 1 + m[2]!.length;
    }
    if (parts.length === 0) continue;
    parts.push(value.slice(last));
    text.replaceWith(...parts.filter((p) => p !== ""));
  }
}

/** The front matter as a properties table; tags as chips that search. */
function propertiesTable(properties: [string, PropertyValue][]): HTMLElement {
  const dl = document.createElement("dl");
  dl.className = "properties";
  dl.setAttribute("aria-label", "Properties");
  for (const [key, value] of properties) {
    const row = document.createElement("div");
    const dt = document.createElement("dt");
    dt.textContent = key;
    const dd = document.createElement("dd");
    if (Array.isArray(value)) {
      for (const v of value) {
        if (/^tags?$/i.test(key)) dd.append(tagChip(v.replace(/^#/, "")));
        else {
          const chip = document.createElement("span");
          chip.className = "chip";
          chip.textContent = v;
          dd.append(chip);
        }
      }
      if (value.length === 0) dd.textContent = "—";
    } else if (/^tags?$/i.test(key)) {
      for (const v of value.split(/[\s,]+/).filter(Boolean)) dd.append(tagChip(v.replace(/^#/, "")));
    } else dd.textContent = value;
    row.append(dt, dd);
    dl.append(row);
  }
  return dl;
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
    const { properties } = splitFrontMatter(content);
    tpl.innerHTML = renderMarkdown(content);
    // Shared notes' attachments are the owner's, which the attachments API does not serve to others.
    const attachment = owner ? () => undefined : resolveAttachment;
    applyPolicy(tpl.content, resolve, attachment);
    tagChips(tpl.content);
    if (properties.length && !nested) tpl.content.prepend(propertiesTable(properties));
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
        const chip = (e.target as Element).closest<HTMLElement>("button.tag-chip");
        if (chip) {
          dispatchEvent(new CustomEvent(SEARCH_TAG_EVENT, { detail: chip.dataset.tag }));
          return;
        }
        const a = (e.target as Element).closest("a.wikilink");
        if (!a) return;
        e.preventDefault();
        const target = a.getAttribute("data-note") ?? "";
        onOpen(resolve(target) ?? (target.endsWith(".md") ? target : `${target}.md`));
      }}
    />
  );
}
