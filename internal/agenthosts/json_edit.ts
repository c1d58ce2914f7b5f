/**
 * Edits one entry of a JSON or JSONC config as text, so everything else stays byte for byte: comments,
 * key order, indentation, line endings. jsonc-parser finds the nodes and applies the edits; we place
 * the edits ourselves because `modify` with formatting reformats whole lines around the insertion
 * point, which would reflow a user's compact neighbouring entry. Insertion and removal are inverses:
 * removing what we inserted gives back the original text (an object emptied by the removal becomes `{}`).
 */
import {
  applyEdits,
  type Edit,
  findNodeAtLocation,
  type Node,
  parse as parseValue,
  type ParseError,
  parseTree,
  printParseErrorCode,
} from "jsonc-parser";
import type { Entry, EntryPlace } from "./hosts.ts";
import { ConfigSyntaxError, lineColumn } from "./syntax_error.ts";

/** Parses JSON (strict: no comments, no trailing commas) or JSONC; a blank file is an empty object. */
export function parseJson(text: string, strict: boolean): unknown {
  return parse(text, strict) ? parseValue(text) : {};
}

export function setJsonEntry(
  text: string,
  place: EntryPlace,
  name: string,
  entry: Entry,
  strict: boolean,
): string {
  const root = parse(text, strict);
  if (!root) return `${JSON.stringify({ [place.root]: { [name]: entry } }, null, 2)}\n`;
  const style = detectStyle(text);
  const servers = findNodeAtLocation(root, [place.root]);
  if (servers && servers.type !== "object") throw new Error(`"${place.root}" is not an object`);
  const existing = servers && findNodeAtLocation(servers, [name]);
  if (existing) {
    const content = stringify(entry, style, lineIndent(text, existing.parent!.offset));
    return applyEdits(text, [{ offset: existing.offset, length: existing.length, content }]);
  }
  return applyEdits(
    text,
    servers
      ? insertMember(text, servers, name, entry, style)
      : insertMember(text, root, place.root, { [name]: entry }, style),
  );
}

export function removeJsonEntry(text: string, place: EntryPlace, name: string, strict: boolean): string {
  const root = parse(text, strict);
  const servers = root && findNodeAtLocation(root, [place.root]);
  const member = servers?.type === "object" ? findNodeAtLocation(servers, [name])?.parent : undefined;
  return member ? applyEdits(text, removeMember(text, servers!, member)) : text;
}

function parse(text: string, strict: boolean): Node | undefined {
  if (text.trim() === "") return undefined;
  const errors: ParseError[] = [];
  const root = parseTree(text, errors, { disallowComments: strict, allowTrailingComma: !strict });
  const first = errors[0];
  if (first) {
    const { line, column } = lineColumn(text, first.offset);
    const comment = printParseErrorCode(first.error) === "InvalidCommentToken";
    throw new ConfigSyntaxError(
      comment ? "a comment, and strict JSON has none" : describeParseError(first),
      line,
      column,
      comment ? "comment" : undefined,
    );
  }
  if (strict) JSON.parse(text);
  if (root?.type !== "object") throw new ConfigSyntaxError("the top level is not an object", 1, 1);
  return root;
}

/** jsonc-parser's error codes in words: `PropertyNameExpected` becomes "property name expected". */
function describeParseError(error: ParseError): string {
  return printParseErrorCode(error.error).replace(/(?<=[a-z])(?=[A-Z])/g, " ").toLowerCase();
}

interface Style {
  /** One level of indentation. */
  unit: string;
  eol: string;
}

function detectStyle(text: string): Style {
  const indented = /^([ \t]+)\S/m.exec(text)?.[1];
  return {
    unit: indented?.startsWith("\t") ? "\t" : indented ?? "  ",
    eol: text.includes("\r\n") ? "\r\n" : "\n",
  };
}

/** The indentation of the line `offset` is on. */
function lineIndent(text: string, offset: number): string {
  const start = text.lastIndexOf("\n", offset - 1) + 1;
  return /^[ \t]*/.exec(text.slice(start))![0];
}

function stringify(value: unknown, style: Style, indent: string): string {
  return JSON.stringify(value, null, style.unit).replaceAll("\n", style.eol + indent);
}

function member(key: string, value: unknown, style: Style, indent: string): string {
  return `${JSON.stringify(key)}: ${stringify(value, style, indent)}`;
}

/** Adds `key` as the last member of `object`, on its own line unless the object is written on one line. */
function insertMember(text: string, object: Node, key: string, value: unknown, style: Style): Edit[] {
  const last = object.children?.at(-1);
  if (!last) {
    const inside = { offset: object.offset + 1, length: object.length - 2 };
    const objectIndent = lineIndent(text, object.offset);
    const indent = objectIndent + style.unit;
    const content = style.eol + indent + member(key, value, style, indent);
    // `{}` becomes a block; anything else inside (a comment) is kept after our member.
    return text.substr(inside.offset, inside.length).trim() === ""
      ? [{ ...inside, content: content + style.eol + objectIndent }]
      : [{ offset: inside.offset, length: 0, content }];
  }
  const lastEnd = last.offset + last.length;
  if (!text.slice(object.offset, last.offset).includes("\n")) {
    return [{ offset: lastEnd, length: 0, content: `, ${JSON.stringify(key)}: ${JSON.stringify(value)}` }];
  }
  const indent = lineIndent(text, last.offset);
  const line = style.eol + indent + member(key, value, style, indent);
  // When the last member's line ends with a comma and/or a comment, go after that line so the comment
  // stays with the member it describes, and mirror the file's trailing-comma style.
  const rest = /^[ \t]*(,?)[ \t]*(?:\/\/[^\r\n]*|\/\*.*?\*\/)?[ \t]*(?=\r?\n|$)/.exec(text.slice(lastEnd));
  if (!rest) return [{ offset: lastEnd, length: 0, content: `,${line}` }];
  const lineEnd = lastEnd + rest[0].length;
  if (rest[1]) return [{ offset: lineEnd, length: 0, content: `${line},` }];
  return lineEnd === lastEnd
    ? [{ offset: lastEnd, length: 0, content: `,${line}` }]
    : [{ offset: lastEnd, length: 0, content: "," }, { offset: lineEnd, length: 0, content: line }];
}

/** Removes one member of `object`: the inverse of insertMember for members it added, valid JSON(C) for any. */
function removeMember(text: string, object: Node, target: Node): Edit[] {
  const members = object.children!;
  const index = members.indexOf(target);
  const end = target.offset + target.length;
  const comma = /^[ \t]*,/.exec(text.slice(end))?.[0] ?? "";
  const previous = members[index - 1];
  if (previous) {
    const previousEnd = previous.offset + previous.length;
    const between = text.slice(previousEnd, target.offset);
    const newline = between.lastIndexOf("\n");
    if (newline < 0) return [{ offset: previousEnd, length: end - previousEnd, content: "" }];
    const lineStart = previousEnd + newline - (between[newline - 1] === "\r" ? 1 : 0);
    // A comma after our member is the file's trailing-comma style or the separator before a following
    // member: it goes with us. Otherwise the separator before us goes.
    if (comma) return [{ offset: lineStart, length: end + comma.length - lineStart, content: "" }];
    const line = { offset: lineStart, length: end - lineStart, content: "" };
    const separator = commaOffset(between.slice(0, newline));
    return separator < 0 ? [line] : [{ offset: previousEnd + separator, length: 1, content: "" }, line];
  }
  const next = members[index + 1];
  if (next) {
    // Our own lines go whole (with the comma and any comment on them) when we start a line and the
    // next member starts a later one; comment lines between us and the next member stay.
    const ownLine = text.lastIndexOf("\n", target.offset - 1) + 1;
    const afterOwnLine = text.indexOf("\n", end) + 1;
    return text.slice(ownLine, target.offset).trim() === "" && afterOwnLine > 0 && afterOwnLine <= next.offset
      ? [{ offset: ownLine, length: afterOwnLine - ownLine, content: "" }]
      : [{ offset: target.offset, length: next.offset - target.offset, content: "" }];
  }
  const inside = { offset: object.offset + 1, length: object.length - 2 };
  const ownEnd = end + comma.length;
  const others = text.slice(inside.offset, target.offset) + text.slice(ownEnd, inside.offset + inside.length);
  return others.trim() === ""
    ? [{ ...inside, content: "" }]
    : [{ offset: target.offset, length: ownEnd - target.offset, content: "" }];
}

/** Offset of the comma in the whitespace and comments between two members, or -1. */
function commaOffset(between: string): number {
  return between.replace(/\/\/[^\n]*|\/\*[\s\S]*?\*\//g, (c) => " ".repeat(c.length)).indexOf(",");
}
