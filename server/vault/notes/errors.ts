/**
 * The errors the note library raises. Each has a stable `code` a route maps to an HTTP status
 * (`status` is the suggested one) and a `message` safe to show a client: it names the user's own
 * note path at most, never a filesystem path, a user directory or a stack.
 */

export type NoteErrorCode =
  | "invalid_path"
  | "invalid_user"
  | "not_found"
  | "already_exists"
  | "conflict"
  | "too_large"
  | "not_empty"
  | "not_a_note"
  | "unsupported_type"
  | "type_mismatch"
  | "invalid_canvas";

const STATUS: Record<NoteErrorCode, number> = {
  invalid_path: 400,
  invalid_user: 400,
  not_found: 404,
  already_exists: 409,
  conflict: 409,
  too_large: 413,
  not_empty: 409,
  not_a_note: 400,
  unsupported_type: 415,
  type_mismatch: 415,
  invalid_canvas: 400,
};

export class NoteError extends Error {
  override name = "NoteError";
  readonly code: NoteErrorCode;
  /** The HTTP status a route should answer with. */
  readonly status: number;

  constructor(code: NoteErrorCode, message: string) {
    super(message);
    this.code = code;
    this.status = STATUS[code];
  }
}

/** A user-supplied path was refused; `reason` says why in a few words. */
export class InvalidPathError extends NoteError {
  override name = "InvalidPathError";
  readonly reason: string;
  constructor(reason: string) {
    super("invalid_path", `invalid path: ${reason}`);
    this.reason = reason;
  }
}

/** An update named a version that is no longer current; nothing was written. */
export class ConflictError extends NoteError {
  override name = "ConflictError";
  /** The version on disk now; the client re-reads it, merges and retries with it. */
  readonly currentVersion: string;
  constructor(path: string, currentVersion: string) {
    super("conflict", `${path} was changed since version was read; re-read it and retry`);
    this.currentVersion = currentVersion;
  }
}

/** One issue of a refused canvas, zod-style: where in the document and what is wrong. */
export interface CanvasIssue {
  path: (string | number)[];
  message: string;
}

export class InvalidCanvasError extends NoteError {
  override name = "InvalidCanvasError";
  readonly issues: CanvasIssue[];
  constructor(issues: CanvasIssue[]) {
    const first = issues[0];
    const where = first && first.path.length ? ` at ${first.path.join(".")}` : "";
    super("invalid_canvas", `invalid canvas${where}: ${first?.message ?? "not a JSON Canvas 1.0 document"}`);
    this.issues = issues;
  }
}
