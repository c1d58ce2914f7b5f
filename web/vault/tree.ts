/** The file tree's shape: the API's flat entries as nested folders, folders first, then by name. */
import type { TreeEntry } from "./api.ts";

export interface TreeNode {
  name: string;
  path: string;
  kind: TreeEntry["kind"];
  children: TreeNode[];
}

export function buildTree(entries: readonly TreeEntry[]): TreeNode[] {
  const root: TreeNode = { name: "", path: "", kind: "folder", children: [] };
  const folders = new Map<string, TreeNode>([["", root]]);
  const folderOf = (path: string): TreeNode => {
    const found = folders.get(path);
    if (found) return found;
    const cut = path.lastIndexOf("/");
    const parent = folderOf(cut >= 0 ? path.slice(0, cut) : "");
    const node: TreeNode = { name: path.slice(cut + 1), path, kind: "folder", children: [] };
    parent.children.push(node);
    folders.set(path, node);
    return node;
  };
  for (const e of [...entries].sort((a, b) => a.path.localeCompare(b.path))) {
    if (e.kind === "folder") folderOf(e.path);
    else {
      const cut = e.path.lastIndexOf("/");
      folderOf(cut >= 0 ? e.path.slice(0, cut) : "").children.push({
        name: e.path.slice(cut + 1),
        path: e.path,
        kind: e.kind,
        children: [],
      });
    }
  }
  const sort = (n: TreeNode) => {
    n.children.sort((a, b) =>
      (a.kind === "folder" ? 0 : 1) - (b.kind === "folder" ? 0 : 1) || a.name.localeCompare(b.name)
    );
    n.children.forEach(sort);
  };
  sort(root);
  return root.children;
}
