/**
 * Note creation by group commit: the creates of one user that arrive while another batch is being
 * written are written together, each file atomically and all of them synced in one fsync round
 * (atomicWriteAll), and each is acknowledged only once it is on disk. The batch's changes are
 * reported together, so the search index takes them as one batch.
 */
import { GroupCommit } from "../../../internal/db/group_commit.ts";
import { atomicWriteAll } from "./atomic_write.ts";
import { NoteError } from "./errors.ts";
import { errno, type NoteMeta } from "./note_types.ts";
import { normalizeNotePath } from "./safe_path.ts";
import { checkText, type UserVaults } from "./user_vaults.ts";

/**
 * Creates of one user written together at most: enough for every client of a busy user (a batch takes
 * about one fsync round), few enough that one batch's files are not a burst on the disk.
 */
const CREATE_BATCH = 64;

type Item = { rel: string; text: string };

export class CreateBatcher {
  readonly #vaults: UserVaults;
  /** Per user, creates waiting to be written together. */
  readonly #creating = new Map<string, GroupCommit<Item, NoteMeta | Error>>();

  constructor(vaults: UserVaults) {
    this.#vaults = vaults;
  }

  /** Creates a note (or canvas, validated); `already_exists` if anything is at that path. */
  async create(userId: string, path: string, content: string): Promise<NoteMeta> {
    // Checked against the disk (symlinks) when the batch writes it.
    await this.#vaults.userRoot(userId);
    const rel = normalizeNotePath(path);
    const text = checkText(rel, content);
    let batcher = this.#creating.get(userId);
    if (!batcher) {
      batcher = new GroupCommit(
        (items) => this.#vaults.lock.run(userId, () => this.#createAll(userId, items)),
        { coalesce: true, maxBatch: CREATE_BATCH },
      );
      this.#creating.set(userId, batcher);
    }
    const out = await batcher.submit({ rel, text });
    if (out instanceof Error) throw out;
    return out;
  }

  /**
   * Writes a batch of creates under the user's lock, each file atomically and all of them synced
   * together (atomicWriteAll). Never throws: each create gets its own outcome, so a batch that
   * failed is not written again one by one (its files may be in place).
   */
  async #createAll(userId: string, items: readonly Item[]): Promise<(NoteMeta | Error)[]> {
    const vaults = this.#vaults;
    const out: (NoteMeta | Error)[] = new Array(items.length);
    const paths = await Promise.all(items.map(async (item, i) => {
      try {
        const { rel, abs } = await vaults.resolve(userId, item.rel);
        await vaults.mkdirParent(rel, abs);
        return { rel, abs };
      } catch (err) {
        out[i] = err as Error;
        return undefined;
      }
    }));
    // Two creates of one path in a batch: the first asked wins, as it would one at a time.
    const writes: { i: number; rel: string; abs: string; text: string }[] = [];
    const taken = new Set<string>();
    for (const [i, at] of paths.entries()) {
      if (at === undefined) continue;
      if (taken.has(at.abs)) out[i] = new NoteError("already_exists", `${at.rel} already exists`);
      else {
        taken.add(at.abs);
        writes.push({ i, rel: at.rel, abs: at.abs, text: items[i]!.text });
      }
    }
    let errors: (Error | undefined)[];
    try {
      errors = await atomicWriteAll(writes.map((w) => ({ path: w.abs, data: w.text, exclusive: true })));
    } catch (err) {
      errors = writes.map(() => err as Error);
    }
    // Reported together once all are recorded, so that the search index takes them as one batch.
    const created: string[] = [];
    await Promise.all(writes.map(async (w, k) => {
      const err = errors[k];
      if (err) {
        out[w.i] = errno(err) === "EEXIST" ? new NoteError("already_exists", `${w.rel} already exists`) : err;
        return;
      }
      try {
        out[w.i] = await vaults.recordWrite(userId, w.rel, w.abs, w.text);
        created.push(w.rel);
      } catch (e) {
        out[w.i] = e as Error;
      }
    }));
    for (const rel of created) vaults.emit({ userId, kind: "created", path: rel, source: "store" });
    return out;
  }
}
