/** The quick switcher (Ctrl/Cmd+O): type part of a note's name, arrows to choose, Enter to open or create. */
import { useState } from "preact/hooks";
import { Modal } from "../shared/modal.tsx";
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
  const found = rankNotes(notes, query);
  const pick = (i: number) => {
    const path = found[i];
    onClose();
    if (path) onOpen(path);
    else if (query.trim()) onCreate(query.trim().endsWith(".md") ? query.trim() : `${query.trim()}.md`);
  };
  return (
    <Modal title="Quick switcher" hideTitle class="switcher" onClose={onClose}>
      <input
        data-autofocus
        aria-label="Find or create a note"
        placeholder="Find or create a note…"
        value={query}
        onInput={(e) => (setQuery(e.currentTarget.value), setIndex(0))}
        onKeyDown={(e) => {
          if (e.key === "ArrowDown") (e.preventDefault(), setIndex(Math.min(index + 1, found.length - 1)));
          else if (e.key === "ArrowUp") {
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
    </Modal>
  );
}
