import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { SOURCE_DIRS, SOURCE_FILES, type Tool } from "./tools.ts";

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
  const sources = Math.max(...[...SOURCE_DIRS, ...SOURCE_FILES].map((p) => newestMtime(join(root, p))));
  return tools.filter((tool) => {
    try {
      return statSync(join(root, "dist", tool)).mtimeMs < sources;
    } catch {
      return true;
    }
  });
}
