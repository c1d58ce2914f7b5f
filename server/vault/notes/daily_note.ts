/**
 * Daily notes: one note per day at `<folder>/<date in format>.md` (Obsidian's defaults: the top
 * folder and `YYYY-MM-DD`; a format with `/` files notes in sub-folders, e.g. `YYYY/MM/YYYY-MM-DD`).
 * A missing note is created from the template note when one is configured, with `{{title}}` the
 * note's name. Templates live in a folder (default `Templates`) and are plain notes.
 */
import { posix } from "node:path";
import { z } from "zod";
import { formatDate, isTimeZone } from "./date_format.ts";
import { NoteError } from "./errors.ts";
import type { NoteStore } from "./note_store.ts";
import type { Note } from "./note_types.ts";
import { normalizeNotePath } from "./safe_path.ts";
import { renderTemplate } from "./template.ts";

export const dailyNotesConfigSchema = z.object({
  /** Folder of the daily notes; "" is the top of the vault. */
  folder: z.string().default(""),
  /** moment.js format of the note name (without `.md`). */
  format: z.string().min(1).default("YYYY-MM-DD"),
  /** Path of a template note, e.g. `Templates/Daily.md`. */
  template: z.string().optional(),
  /** IANA time zone that decides which day "today" is. */
  timeZone: z.string().refine(isTimeZone, "an IANA time zone such as Europe/Berlin").default("UTC"),
});

export type DailyNotesConfig = z.input<typeof dailyNotesConfigSchema>;

/**
 * Where the daily note of `date` lives; throws `InvalidPathError` if the folder or the format makes a
 * bad path. Joined as text, not with path.join, which would collapse `a/../Daily` (or a format's
 * `[..]`) into another folder instead of letting the path check refuse the `..`.
 */
export function dailyNotePath(date: Date, config: DailyNotesConfig = {}): string {
  const c = dailyNotesConfigSchema.parse(config);
  const name = formatDate(date, c.format, c.timeZone);
  return normalizeNotePath(c.folder ? `${c.folder}/${name}.md` : `${name}.md`);
}

/** The daily note of `date`, created (from the template) if missing. */
export async function openDailyNote(
  store: NoteStore,
  userId: string,
  date: Date,
  config: DailyNotesConfig = {},
): Promise<{ note: Note; created: boolean }> {
  const c = dailyNotesConfigSchema.parse(config);
  const path = dailyNotePath(date, c);
  try {
    return { note: await store.read(userId, path), created: false };
  } catch (err) {
    if (!(err instanceof NoteError && err.code === "not_found")) throw err;
  }
  const content = c.template
    ? await templateText(store, userId, c.template).then((t) =>
      renderTemplate(t, { title: posix.basename(path, ".md"), now: date, timeZone: c.timeZone })
    )
    : "";
  try {
    await store.create(userId, path, content);
  } catch (err) {
    // Someone else made it first: theirs is today's note.
    if (!(err instanceof NoteError && err.code === "already_exists")) throw err;
    return { note: await store.read(userId, path), created: false };
  }
  return { note: await store.read(userId, path), created: true };
}

async function templateText(store: NoteStore, userId: string, template: string): Promise<string> {
  try {
    return (await store.read(userId, template)).content;
  } catch (err) {
    if (err instanceof NoteError && err.code === "not_found") {
      throw new NoteError("not_found", `template ${normalizeNotePath(template)} not found`);
    }
    throw err;
  }
}

/** The template notes in `folder` (default `Templates`), sorted. */
export async function listTemplates(
  store: NoteStore,
  userId: string,
  folder = "Templates",
): Promise<string[]> {
  const prefix = normalizeNotePath(folder) + "/";
  return (await store.tree(userId))
    .filter((e) => e.kind === "note" && e.path.startsWith(prefix))
    .map((e) => e.path);
}

/** Creates `target` from the template note at `template`; `already_exists` if target is taken. */
export async function createFromTemplate(
  store: NoteStore,
  userId: string,
  template: string,
  target: string,
  opts: { now?: Date; timeZone?: string } = {},
) {
  const text = await templateText(store, userId, template);
  const path = normalizeNotePath(target);
  const content = renderTemplate(text, { title: posix.basename(path, ".md"), ...opts });
  return await store.create(userId, path, content);
}
