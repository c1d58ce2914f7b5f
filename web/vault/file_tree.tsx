/**
 * The files panel: folders and notes as a tree; create a note (optionally from a template) or a
 * folder, rename, delete to the trash (with undo), and drag a file or folder onto a folder (or the
 * panel's empty space, the vault's root) to move it. Moves and renames go through POST
 * /api/notes/move, which rewrites the links to what moved.
 */
import { useState } from "preact/hooks";
import type { SharedTree, TreeEntry } from "./api.ts";
import { buildTree, type TreeNode } from "./tree.ts";

const DRAG_TYPE = "application/x-vault-path";

export interface FileTreeProps {
  entries: TreeEntry[];
  shared: SharedTree[];
  active: string | undefined;
  onOpen: (path: string, owner?: string) => void;
  /** Opens a note in the pane beside the focused one. */
  onOpenToSide?: (path: string) => void;
  onNewNote: (folder: string) => void;
  onNewFolder: (folder: string) => void;
  onNewCanvas?: (folder: string) => void;
  onRename: (path: string) => void;
  onDelete: (path: string, kind: TreeEntry["kind"]) => void;
  onMove: (from: string, toFolder: string) => void;
}

function Row({ node, depth, p }: { node: TreeNode; depth: number; p: FileTreeProps }) {
  const [open, setOpen] = useState(true);
  const [over, setOver] = useState(false);
  const isFolder = node.kind === "folder";
  const dropProps = isFolder
    ? {
      onDragOver: (e: DragEvent) => {
        if (!e.dataTransfer?.types.includes(DRAG_TYPE)) return;
        e.preventDefault();
        e.stopPropagation();
        setOver(true);
      },
      onDragLeave: () => setOver(false),
      onDrop: (e: DragEvent) => {
        e.preventDefault();
        e.stopPropagation();
        setOver(false);
        const from = e.dataTransfer?.getData(DRAG_TYPE);
        if (from && from !== node.path && !node.path.startsWith(from + "/")) p.onMove(from, node.path);
      },
    }
    : {};
  return (
    <li>
      <div
        class={`row${p.active === node.path ? " active" : ""}${over ? " drop" : ""}`}
        style={{ paddingLeft: `${0.4 + depth * 0.9}rem` }}
        draggable
        onDragStart={(e) => e.dataTransfer?.setData(DRAG_TYPE, node.path)}
        data-path={node.path}
        {...dropProps}
      >
        <button
          type="button"
          class="name"
          aria-expanded={isFolder ? open : undefined}
          onClick={() => (isFolder ? setOpen(!open) : p.onOpen(node.path))}
        >
          <span class="icon" aria-hidden="true">
            {isFolder ? (open ? "▾" : "▸") : node.kind === "note" ? "·" : "◦"}
          </span>
          {isFolder || node.kind !== "note" ? node.name : node.name.replace(/\.md$/, "")}
        </button>
        <span class="row-actions">
          {isFolder && (
            <button
              type="button"
              class="icon-button"
              aria-label={`New note in ${node.path}`}
              title="New note here"
              onClick={() => p.onNewNote(node.path)}
            >
              +
            </button>
          )}
          {!isFolder && node.kind === "note" && p.onOpenToSide && (
            <button
              type="button"
              class="icon-button"
              aria-label={`Open ${node.path} to the side`}
              title="Open to the side"
              onClick={() => p.onOpenToSide!(node.path)}
            >
              ⇥
            </button>
          )}
          <button
            type="button"
            class="icon-button"
            aria-label={`Rename ${node.path}`}
            title="Rename or move"
            onClick={() => p.onRename(node.path)}
          >
            ✎
          </button>
          <button
            type="button"
            class="icon-button"
            aria-label={`Delete ${node.path}`}
            title="Move to trash"
            onClick={() => p.onDelete(node.path, node.kind)}
          >
            ✕
          </button>
        </span>
      </div>
      {isFolder && open && node.children.length > 0 && (
        <ul>{node.children.map((c) => <Row key={c.path} node={c} depth={depth + 1} p={p} />)}</ul>
      )}
    </li>
  );
}

export function FileTree(p: FileTreeProps) {
  const [over, setOver] = useState(false);
  const nodes = buildTree(p.entries);
  return (
    <div
      class={over ? "tree drop" : "tree"}
      onDragOver={(e) => {
        if (!e.dataTransfer?.types.includes(DRAG_TYPE)) return;
        e.preventDefault();
        setOver(true);
      }}
      onDragLeave={() => setOver(false)}
      onDrop={(e) => {
        e.preventDefault();
        setOver(false);
        const from = e.dataTransfer?.getData(DRAG_TYPE);
        if (from && from.includes("/")) p.onMove(from, "");
      }}
    >
      <div class="panel-tools">
        <button type="button" onClick={() => p.onNewNote("")}>New note</button>
        <button type="button" onClick={() => p.onNewFolder("")}>New folder</button>
        {p.onNewCanvas && <button type="button" onClick={() => p.onNewCanvas!("")}>New canvas</button>}
      </div>
      {nodes.length === 0 && <p class="muted">No notes yet.</p>}
      <ul aria-label="Files">{nodes.map((n) => <Row key={n.path} node={n} depth={0} p={p} />)}</ul>
      {p.shared.length > 0 && (
        <section class="shared" aria-label="Shared with me">
          <h3>Shared with me</h3>
          {p.shared.map((s) => (
            <div key={s.ownerId + s.path}>
              <p class="muted">{s.ownerName} · {s.path} ({s.permission})</p>
              <ul>
                {s.entries.filter((e) => e.kind === "note").map((e) => (
                  <li key={e.path}>
                    <div class="row">
                      <button type="button" class="name" onClick={() => p.onOpen(e.path, s.ownerId)}>
                        {e.path.replace(/\.md$/, "")}
                      </button>
                    </div>
                  </li>
                ))}
              </ul>
            </div>
          ))}
        </section>
      )}
    </div>
  );
}
