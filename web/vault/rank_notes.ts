/** The quick switcher's matching. */
/** Notes whose path contains every typed word, shortest names first. */
export function rankNotes(paths: readonly string[], query: string): string[] {
  const words = query.toLowerCase().split(/\s+/).filter(Boolean);
  return paths
    .filter((p) => words.every((w) => p.toLowerCase().includes(w)))
    .sort((a, b) => a.length - b.length || a.localeCompare(b))
    .slice(0, 50);
}
