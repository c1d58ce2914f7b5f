/**
 * Our entry inside a parsed config, whatever the format: `root[name]` in a map, or the item of the
 * `root` list whose `name` matches. Used to read the entry and to compute what a file must parse to
 * after an edit, which is how every edit proves it touched nothing else.
 */
import type { Entry, EntryPlace } from "./hosts.ts";

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => v !== null && typeof v === "object" && !Array.isArray(v);

/** The entry called `name`, or undefined when there is none. */
export function getEntry(doc: unknown, place: EntryPlace, name: string): unknown {
  if (!isObject(doc)) return undefined;
  const servers = doc[place.root];
  if (place.listKey) {
    return Array.isArray(servers) ? servers.find((item) => isObject(item) && item.name === name) : undefined;
  }
  return isObject(servers) && Object.hasOwn(servers, name) ? servers[name] : undefined;
}

/** A copy of `doc` with `entry` set (added last, or replaced in place). */
export function withEntry(doc: unknown, place: EntryPlace, name: string, entry: Entry): Json {
  const copy: Json = isObject(doc) ? { ...doc } : {};
  const servers = copy[place.root];
  if (place.listKey) {
    const list = Array.isArray(servers) ? [...servers] : [];
    const at = list.findIndex((item) => isObject(item) && item.name === name);
    if (at >= 0) list[at] = entry;
    else list.push(entry);
    copy[place.root] = list;
  } else {
    copy[place.root] = { ...(isObject(servers) ? servers : {}), [name]: entry };
  }
  return copy;
}

/** A copy of `doc` without the entry called `name`. */
export function withoutEntry(doc: unknown, place: EntryPlace, name: string): Json {
  const copy: Json = isObject(doc) ? { ...doc } : {};
  const servers = copy[place.root];
  if (place.listKey && Array.isArray(servers)) {
    copy[place.root] = servers.filter((item) => !(isObject(item) && item.name === name));
  } else if (isObject(servers)) {
    const { [name]: _removed, ...rest } = servers;
    copy[place.root] = rest;
  }
  return copy;
}
