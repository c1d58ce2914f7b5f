/**
 * Members of a tar archive read in memory (ustar and GNU headers, regular files only): enough for the
 * npm package the build fetches, without tar on the machine.
 */
import { gunzipSync } from "node:zlib";

/** The named members of a .tgz, name => bytes; names as stored (npm's start with "package/"). */
export function tgzMembers(tgz: Uint8Array, names: readonly string[]): Map<string, Uint8Array> {
  const tar = gunzipSync(tgz);
  const wanted = new Set(names);
  const found = new Map<string, Uint8Array>();
  const text = new TextDecoder();
  const field = (at: number, length: number) =>
    text.decode(tar.subarray(at, at + length)).replace(/\0.*$/s, "");
  for (let at = 0; at + 512 <= tar.length;) {
    const name = field(at, 100);
    if (!name) break; // the two zero blocks that end an archive
    const size = parseInt(field(at + 124, 12).trim() || "0", 8);
    const prefix = field(at + 257, 6).startsWith("ustar") ? field(at + 345, 155) : "";
    const path = prefix ? `${prefix}/${name}` : name;
    const type = field(at + 156, 1);
    if ((type === "0" || type === "") && wanted.has(path)) {
      found.set(path, tar.subarray(at + 512, at + 512 + size));
    }
    at += 512 + Math.ceil(size / 512) * 512;
  }
  const missing = names.filter((n) => !found.has(n));
  if (missing.length) throw new Error(`tar: no ${missing.join(", ")}`);
  return found;
}

/** One member of a tar archive: what the image layers and release archives are made of. */
export interface TarEntry {
  /** Relative, `/`-separated, no leading `./` nor trailing `/`. */
  path: string;
  type: "file" | "dir" | "symlink" | "hardlink";
  /** Permission bits, e.g. 0o755. */
  mode: number;
  uid?: number;
  gid?: number;
  data?: Uint8Array;
  /** The target of a symlink, or the archive path a hardlink points at. */
  linkname?: string;
}

const TYPE_FLAG = { file: "0", hardlink: "1", symlink: "2", dir: "5" } as const;
const FLAG_TYPE: Record<string, TarEntry["type"]> = {
  "0": "file",
  "": "file",
  "1": "hardlink",
  "2": "symlink",
  "5": "dir",
};

/**
 * Every member of an uncompressed tar (ustar, with GNU long names and pax path/linkpath records), in
 * archive order. Other types (devices, fifos) are skipped; a base layer has no use for them.
 */
export function tarEntries(tar: Uint8Array): TarEntry[] {
  const text = new TextDecoder();
  const entries: TarEntry[] = [];
  const field = (at: number, length: number) =>
    text.decode(tar.subarray(at, at + length)).replace(/\0.*$/s, "");
  const octal = (at: number, length: number) => parseInt(field(at, length).trim() || "0", 8);
  let longName: string | undefined;
  let longLink: string | undefined;
  for (let at = 0; at + 512 <= tar.length;) {
    const start = at;
    const name = field(start, 100);
    if (!name) break;
    const size = octal(start + 124, 12);
    const type = field(start + 156, 1);
    const body = tar.subarray(start + 512, start + 512 + size);
    at += 512 + Math.ceil(size / 512) * 512;
    if (type === "L" || type === "K") {
      const value = text.decode(body).replace(/\0.*$/s, "");
      if (type === "L") longName = value;
      else longLink = value;
      continue;
    }
    if (type === "x") {
      for (const record of text.decode(body).split("\n")) {
        const m = /^\d+ (path|linkpath)=(.*)$/s.exec(record);
        if (m?.[1] === "path") longName = m[2];
        if (m?.[1] === "linkpath") longLink = m[2];
      }
      continue;
    }
    const prefix = field(start + 257, 6).startsWith("ustar") ? field(start + 345, 155) : "";
    const raw = longName ?? (prefix ? `${prefix}/${name}` : name);
    const linkname = longLink ?? field(start + 157, 100);
    longName = longLink = undefined;
    const kind = FLAG_TYPE[type];
    const path = raw.replace(/^\.\//, "").replace(/\/+$/, "");
    if (!kind || !path || path === ".") continue;
    entries.push({
      path,
      type: kind,
      mode: octal(start + 100, 8) & 0o7777,
      uid: octal(start + 108, 8),
      gid: octal(start + 116, 8),
      ...(kind === "file" ? { data: body } : {}),
      ...(kind === "symlink" || kind === "hardlink" ? { linkname: linkname.replace(/^\.\//, "") } : {}),
    });
  }
  return entries;
}

const encoder = new TextEncoder();

function header(name: string, e: Omit<TarEntry, "path">, size: number, typeflag: string, mtime: number) {
  const h = new Uint8Array(512);
  // Names longer than a field are cut to it; the pax header before this one carries them whole.
  const put = (at: number, value: string, length = 100) =>
    h.set(encoder.encode(value).subarray(0, length), at);
  const num = (at: number, length: number, value: number) =>
    put(at, value.toString(8).padStart(length - 1, "0") + "\0");
  put(0, name);
  num(100, 8, e.mode);
  num(108, 8, e.uid ?? 0);
  num(116, 8, e.gid ?? 0);
  num(124, 12, size);
  num(136, 12, mtime);
  put(148, "        ");
  put(156, typeflag);
  if (e.linkname) put(157, e.linkname);
  put(257, "ustar\u000000");
  let sum = 0;
  for (const b of h) sum += b;
  put(148, sum.toString(8).padStart(6, "0") + "\0 ");
  return h;
}

/** A pax record `"<len> key=value\n"`, whose length counts its own digits. */
function paxRecord(key: string, value: string): string {
  const body = ` ${key}=${value}\n`;
  let length = encoder.encode(body).length + 1;
  while (`${length}${body}`.length !== length) length = encoder.encode(`${length}${body}`).length;
  return `${length}${body}`;
}

const fits = (s: string) => encoder.encode(s).length <= 100;

/**
 * A tar archive of `entries` in the order given, every member stamped with `mtime` (seconds) and the
 * entry's numeric owner, no user or group names: the same entries give the same bytes. Names too long
 * for ustar get a pax header.
 */
export function writeTar(entries: readonly TarEntry[], mtime = 0): Uint8Array {
  const blocks: Uint8Array[] = [];
  const pad = (n: number) => new Uint8Array((512 - (n % 512)) % 512);
  for (const e of entries) {
    const name = e.type === "dir" ? `${e.path}/` : e.path;
    const data = e.type === "file" ? e.data ?? new Uint8Array() : new Uint8Array();
    const pax = [
      ...(fits(name) ? [] : [paxRecord("path", name)]),
      ...(e.linkname && !fits(e.linkname) ? [paxRecord("linkpath", e.linkname)] : []),
    ].join("");
    if (pax) {
      const body = encoder.encode(pax);
      blocks.push(
        header("PaxHeader", { type: "file", mode: 0o644 }, body.length, "x", mtime),
        body,
        pad(body.length),
      );
    }
    blocks.push(
      header(name, e, data.length, TYPE_FLAG[e.type], mtime),
      data,
      pad(data.length),
    );
  }
  blocks.push(new Uint8Array(1024));
  const out = new Uint8Array(blocks.reduce((n, b) => n + b.length, 0));
  let at = 0;
  for (const b of blocks) (out.set(b, at), (at += b.length));
  return out;
}
