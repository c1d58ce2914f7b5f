import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { SOURCES, type Tool, TOOL_SOURCES } from "./tools.ts";

function newestMtime(path: string): number {
  let st;
  try {
    st = statSync(path);
  } catch {
    return 0;
  }
  if (!st.isDirectory()) return st.mtimeMs;
  let newest = st.mtimeMs;
  for (const entry of readdirSync(path)) newest = Math.max(newest, newestMtime(join(path, entry)));
  return newest;
}

/** The tools whose dist/ binary is missing or older than any source file. */
export function staleTools(root: string, tools: readonly Tool[]): Tool[] {
  const newest = (paths: readonly string[]) => Math.max(0, ...paths.map((p) => newestMtime(join(root, p))));
  const shared = newest(SOURCES);
  return tools.filter((tool) => {
    try {
      const sources = Math.max(shared, newest(TOOL_SOURCES[tool] ?? []));
      return statSync(join(root, "dist", tool)).mtimeMs < sources;
    } catch {
      return true;
    }
  });
}
