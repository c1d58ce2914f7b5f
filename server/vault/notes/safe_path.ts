/**
 * User-supplied note paths, made safe before they touch the disk.
 *
 * `normalizeNotePath` is pure: NFC, `\` read as `/`, `.` segments and repeated slashes dropped,
 * at most 500 characters. It refuses traversal (`..` in any spelling, including percent-encoded
 * and Unicode lookalikes such as fullwidth dots, which NFKC folds to `.`), absolute paths (`/x`,
 * `//server`, `C:\`), NUL and other control or invisible format characters, names Windows or a
 * sync tool would mangle (trailing dots or spaces, `CON`, `<>:"|?*`), and hidden segments (`.x`):
 * those are reserved for the store (`.trash/`) and for other tools' state (`.obsidian/`).
 *
 * `resolveInside` runs at open time: it maps a normalised path under a root and checks, with
 * realpath, that no symlink on the way leads outside the root. A check-then-open race with someone
 * who can create symlinks inside the user's directory remains; the user's directory is written only
 * by this server and by the user's own tools.
 */
import { lstat, realpath } from "node:fs/promises";
import { join, sep } from "node:path";
import { InvalidPathError } from "./errors.ts";

/** The longest normalised path accepted, in characters (Unicode code points). */
export const MAX_PATH_CHARS = 500;
/** The longest single name; most filesystems stop at 255 bytes. */
export const MAX_SEGMENT_BYTES = 255;

const WINDOWS_RESERVED = /^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³])(\..*)?$/i;
// C0 and C1 controls, DEL.
// deno-lint-ignore no-control-regex -- finding control characters is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/u;
// Invisible characters that make two different names look the same: zero-width spaces and joiners
// at the edges of words, bidi overrides and isolates, the BOM, soft hyphen, word joiner.
const INVISIBLE = /[\u00ad\u200b\u200c\u200e\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/u;
const NOT_PORTABLE = /[<>:"|?*]/;

function refuse(reason: string): never {
  throw new InvalidPathError(reason);
}

/** Percent-decodes up to three times; stops at text that is not valid percent-encoding. */
function decodedForms(s: string): string[] {
  const forms: string[] = [];
  let cur = s;
  for (let i = 0; i < 3 && /%[0-9a-f]{2}/i.test(cur); i++) {
    try {
      cur = decodeURIComponent(cur);
    } catch {
      break;
    }
    forms.push(cur);
  }
  return forms;
}

const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

function checkSegment(seg: string): void {
  // Printable ASCII is its own NFKC form and one byte per character: skip the Unicode work.
  const ascii = PRINTABLE_ASCII.test(seg);
  const folded = ascii ? seg : seg.normalize("NFKC");
  if (/^\.+$/.test(folded)) refuse(seg === ".." ? "'..' is not allowed" : "a name made of dots");
  if (/[\/\\]/.test(folded)) refuse("a character that reads as a slash");
  if (seg.startsWith(".")) refuse("names starting with '.' are reserved");
  if (/[ .]$/.test(seg)) refuse("a name ending in a dot or a space");
  if (/^ /.test(seg)) refuse("a name starting with a space");
  if (NOT_PORTABLE.test(seg)) refuse(`the characters < > : " | ? * are not allowed`);
  if (WINDOWS_RESERVED.test(seg)) refuse("a reserved device name");
  if ((ascii ? seg.length : new TextEncoder().encode(seg).length) > MAX_SEGMENT_BYTES) {
    refuse("a name longer than 255 bytes");
  }
}

/**
 * The canonical form of a note, folder or attachment path relative to the user's directory.
 * Throws `InvalidPathError` (its message names no filesystem path).
 *
 * @example
 * normalizeNotePath("Projects\\plan.md")  // "Projects/plan.md"
 * normalizeNotePath("a/../../etc/passwd") // throws InvalidPathError
 */
export function normalizeNotePath(input: unknown, opts: { allowRoot?: boolean } = {}): string {
  if (typeof input !== "string") refuse("not a string");
  if (input.includes("\0")) refuse("NUL character");
  if (CONTROL.test(input)) refuse("control character");
  if (INVISIBLE.test(input)) refuse("invisible formatting character");
  if (/^[\/\\]/.test(input)) refuse("absolute paths are not allowed");
  if (/^[a-z]:/i.test(input)) refuse("drive letters are not allowed");
  for (const decoded of decodedForms(input)) {
    if (/(^|[\/\\])\.\.([\/\\]|$)/.test(decoded) || /^[\/\\]/.test(decoded) || decoded.includes("\0")) {
      refuse("percent-encoded traversal");
    }
  }
  const nfc = input.normalize("NFC").replaceAll("\\", "/");
  const segments = nfc.split("/").filter((s) => s !== "" && s !== ".");
  if (segments.length === 0) {
    if (opts.allowRoot) return "";
    refuse("empty path");
  }
  for (const seg of segments) checkSegment(seg);
  const out = segments.join("/");
  if ([...out].length > MAX_PATH_CHARS) refuse(`longer than ${MAX_PATH_CHARS} characters`);
  return out;
}

/**
 * Whether a name found on disk is one this library can address: what `normalizeNotePath` would
 * accept and return unchanged (so NFD names written by macOS tools, `Re: x.md` or `.hidden` are not).
 */
export function isAddressableName(name: string): boolean {
  if (
    (!PRINTABLE_ASCII.test(name) && name !== name.normalize("NFC")) || CONTROL.test(name) ||
    INVISIBLE.test(name) || name.includes("\\")
  ) {
    return false;
  }
  try {
    checkSegment(name);
    return true;
  } catch {
    return false;
  }
}

function isInside(root: string, real: string): boolean {
  return real === root || real.startsWith(root.endsWith(sep) ? root : root + sep);
}

/**
 * The absolute location of normalised `rel` under `root`, after checking that the deepest part of it
 * that exists resolves (through any symlinks) inside `root`'s real location. A symlink that escapes
 * is refused with the same error a traversal gets. `root` must exist. `realRoot`: where `root` was found
 * to really be (a caller that keeps it saves a call; if `root` moved since, what is outside the kept
 * location is refused).
 */
export async function resolveInside(root: string, rel: string, realRoot?: string): Promise<string> {
  realRoot ??= await realpath(root);
  const parts = rel === "" ? [] : rel.split("/");
  // Walk down from the full path to the root until something exists, and check where it really is.
  for (let n = parts.length; n >= 0; n--) {
    const candidate = join(realRoot, ...parts.slice(0, n));
    let real: string;
    try {
      real = await realpath(candidate);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === "ENOENT" || code === "ENOTDIR") {
        // A dangling symlink: where it leads cannot be checked, so it is refused.
        if ((await lstat(candidate).catch(() => undefined))?.isSymbolicLink()) {
          refuse("a symlink that leads outside the vault");
        }
        continue;
      }
      if (code === "ELOOP") refuse("a symlink loop");
      throw err;
    }
    if (!isInside(realRoot, real)) refuse("a symlink that leads outside the vault");
    return join(real, ...parts.slice(n));
  }
  return join(realRoot, ...parts);
}
