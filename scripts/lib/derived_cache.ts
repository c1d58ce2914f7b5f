/**
 * Files the build derives from pinned inputs in minutes of CPU (builtin-static's token table, the word
 * neighbours, the brotli-compressed native runtime), kept beside the downloads they come from
 * (scripts/lib/minilm.ts's cache, outside the clone), so a fresh clone or CI copies them instead of
 * deriving them again. Each is keyed by a string naming everything it is derived from; the caller still
 * checks what it copies back as it checks what it derives.
 */
import { createHash } from "node:crypto";
import { copyFileSync, existsSync, mkdirSync, renameSync } from "node:fs";
import { basename, join } from "node:path";

export class DerivedCache {
  constructor(private readonly root: string) {}

  #at(path: string, source: string): string {
    const key = createHash("sha256").update(source).digest("hex").slice(0, 24);
    return join(this.root, "derived", `${key}-${basename(path)}`);
  }

  /** Copies the kept file derived from `source` to `path`; false when there is none. */
  restore(path: string, source: string): boolean {
    const kept = this.#at(path, source);
    if (!existsSync(kept)) return false;
    copyFileSync(kept, `${path}.tmp`);
    renameSync(`${path}.tmp`, path);
    return true;
  }

  /** Keeps a copy of `path`, derived from `source`. */
  keep(path: string, source: string): void {
    const kept = this.#at(path, source);
    mkdirSync(join(this.root, "derived"), { recursive: true });
    copyFileSync(path, `${kept}.tmp`);
    renameSync(`${kept}.tmp`, kept);
  }
}
