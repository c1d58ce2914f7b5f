/**
 * Project names. A name is NFKC-normalised before it is validated, so a look-alike spelling
 * (fullwidth "ｍｅｍｏｒｙ", a ligature, a superscript digit) becomes the plain text it looks like and
 * collides with it. Its lower-cased form, the name key, is what uniqueness and lookups compare.
 */
import { ValidationError } from "../../../internal/http/mod.ts";

export const MAX_PROJECT_NAME_LENGTH = 64;
const FIRST_CHARACTER = /^[\p{L}\p{Nd}]$/u;
// Combining marks are allowed after the first character: scripts such as Devanagari need them for
// letters that NFKC cannot compose into one code point.
const CHARACTER = /^[\p{L}\p{M}\p{Nd} ._-]$/u;

export interface ProjectName {
  /** NFKC-normalised and trimmed: the name as stored and shown. */
  name: string;
  /** The name lower-cased: unique per owner. */
  nameKey: string;
}

/**
 * Normalises and validates a new project's name: after NFKC and trimming, 1 to 64 characters of
 * letters, digits, space, `-`, `_` and `.`, starting with a letter or digit. ValidationError (400,
 * path `name`) otherwise.
 */
export function parseProjectName(input: string): ProjectName {
  const name = input.normalize("NFKC").trim();
  const problem = nameProblem([...name]);
  if (problem) {
    throw new ValidationError([{ path: ["name"], message: problem, code: "invalid_project_name" }]);
  }
  return { name, nameKey: name.toLowerCase() };
}

/** The key a project reference is compared by: the stored names' normalisation, lower-cased. */
export function projectNameKey(ref: string): string {
  return ref.normalize("NFKC").trim().toLowerCase();
}

function nameProblem(characters: string[]): string | undefined {
  if (characters.length === 0) return "name must not be empty";
  if (characters.length > MAX_PROJECT_NAME_LENGTH) {
    return `name must be at most ${MAX_PROJECT_NAME_LENGTH} characters after NFKC normalisation, not ${characters.length}`;
  }
  if (!FIRST_CHARACTER.test(characters[0]!)) return "name must start with a letter or digit";
  const bad = characters.find((ch) => !CHARACTER.test(ch));
  if (bad !== undefined) {
    const allowed = 'letters, digits, spaces, "-", "_" and "."';
    return `name may contain only ${allowed}; ${JSON.stringify(bad)} is not allowed`;
  }
  return undefined;
}
