/** The quick switcher (Ctrl/Cmd+O): type part of a note's name, arrows to choose, Enter to open or create. */
import { useEffect, useRef, useState } from "preact/hooks";
import { rankNotes } from "./rank_notes.ts";

export function Switcher(
  { notes, onOpen, onCreate, onClose }: {
    notes: string[];
    onOpen: (path: string) => void;
    onCreate: (path: string) => void;
    onClose: () => void;
  },
) {
  const [query, setQuery] = useState("");
  const [index, setIndex] = useState(0);
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => input.current?.focus(), []);
  const found = rankNotes(notes, query);
  const pick = (i: number) => {
    const path = found[i];
    onClose();
    if (path) onOpen(path);
    else if (query.trim()) onCreate(query.trim().endsWith(".md") ? query.trim() : `${query.trim()}.md`);
  };
  return (
    <div class="overlay" onClick={(e) => e.target === e.currentTarget && onClose()}>
      <div class="modal switcher" role="dialog" aria-modal="true" aria-label="Quick switcher">
        <input
          ref={input}
          aria-label="Find or create a note"
          placeholder="Find or create a note…"
          value={query}
          onInput={(e) => (setQuery(e.currentTarget.value), setIndex(0))}
          onKeyDown={(e) => {
            if (e.key === "Escape") onClose();
            else if (e.key === "ArrowDown") {(e.preventDefault(),
                setIndex(Math.min(index + 1, found.length - 1)));} else if (e.key === "ArrowUp") {
              (e.preventDefault(), setIndex(Math.max(index - 1, 0)));
            } else if (e.key === "Enter") (e.preventDefault(), pick(index));
          }}
        />
        <ul role="listbox" aria-label="Notes">
          {found.map((p, i) => (
            <li
              key={p}
              role="option"
              aria-selected={i === index}
              class={i === index ? "active" : ""}
              onClick={() => pick(i)}
            >
              {p.replace(/\.md$/, "")}
            </li>
          ))}
          {found.length === 0 && query.trim() && (
            <li
              role="option"
              aria-selected="true"
              class="active"
              onClick={() => pick(0)}
            >
              Create “{query.trim()}”
            </li>
          )}
        </ul>
      </div>
    </div>
  );
}
