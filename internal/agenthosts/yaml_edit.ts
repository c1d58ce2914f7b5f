/**
 * Edits one entry of a YAML config through the `yaml` library's document model, which keeps comments,
 * key order and scalar styles of everything we do not touch. The document is printed back with the
 * file's own indentation and sequence style and without line folding, so untouched lines come out
 * as they went in.
 */
import { type Document, isMap, isSeq, parseDocument, type ToStringOptions, YAMLMap, YAMLSeq } from "yaml";
import type { Entry, EntryPlace } from "./hosts.ts";
import { ConfigSyntaxError } from "./syntax_error.ts";

export function parseYaml(text: string): unknown {
  return load(text).toJS() ?? {};
}

export function setYamlEntry(text: string, place: EntryPlace, name: string, entry: Entry): string {
  const doc = load(text);
  const node = doc.createNode(entry);
  const servers = doc.get(place.root, true);
  if (servers === undefined || servers === null || isEmptyScalar(servers)) {
    doc.set(place.root, doc.createNode(place.listKey ? [entry] : { [name]: entry }));
  } else if (place.listKey) {
    if (!isSeq(servers)) throw new Error(`"${place.root}" is not a list`);
    const at = indexByName(servers, name);
    if (at >= 0) servers.set(at, node);
    else servers.add(node);
  } else {
    if (!isMap(servers)) throw new Error(`"${place.root}" is not a mapping`);
    servers.set(name, node);
  }
  return print(doc, text);
}

export function removeYamlEntry(text: string, place: EntryPlace, name: string): string {
  const doc = load(text);
  const servers = doc.get(place.root, true);
  if (place.listKey && isSeq(servers)) {
    const at = indexByName(servers, name);
    if (at < 0) return text;
    servers.delete(at);
  } else if (!place.listKey && isMap(servers) && servers.has(name)) {
    servers.delete(name);
  } else {
    return text;
  }
  return print(doc, text);
}

function load(text: string): Document {
  const doc = parseDocument(text);
  const error = doc.errors[0];
  if (error) {
    // The library's message ends with " at line L, column C" and the lines around it; keep the what.
    const what = error.message.split("\n")[0]!.replace(/ at line \d+, column \d+:?$/, "");
    throw new ConfigSyntaxError(what, error.linePos?.[0].line, error.linePos?.[0].col);
  }
  if (doc.contents !== null && !isMap(doc.contents)) {
    throw new ConfigSyntaxError("the top level is not a mapping", 1, 1);
  }
  return doc;
}

function isEmptyScalar(node: unknown): boolean {
  return typeof node === "object" && node !== null && "value" in node && node.value === null;
}

function indexByName(list: YAMLSeq, name: string): number {
  return list.items.findIndex((item) => item instanceof YAMLMap && item.get("name") === name);
}

/** Prints the document in the style the file was written in. */
function print(doc: Document, original: string): string {
  const indent = /^( +)\S/m.exec(original)?.[1]?.length ?? 2;
  // A key followed by `- item` at the same indentation means sequences are not indented under keys.
  const indentSeq = !/^([ \t]*)[^\s#-][^\n]*:[ \t]*(#.*)?\r?\n\1- /m.test(original);
  const options: ToStringOptions = { indent, indentSeq, lineWidth: 0 };
  return doc.toString(options);
}
