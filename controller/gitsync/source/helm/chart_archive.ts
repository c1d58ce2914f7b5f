/**
 * A chart archive (.tgz, as `helm package` writes it and chart repositories and OCI registries serve
 * it) unpacked into memory with the limits a controller fetching other people's charts needs (seed
 * section 8): the decompressed size and the file count are capped, and entries whose path is absolute
 * or leaves the chart folder (`..`), links and devices are refused. The result is the chart folder's
 * files relative to its root (the archive's single top-level folder taken off), as the renderer takes them.
 */
import { gunzipSync } from "node:zlib";

export class ChartArchiveError extends Error {
  override name = "ChartArchiveError";
}

export interface ChartArchiveLimits {
  /** Most bytes once decompressed; default 64 MiB. */
  maxBytes?: number;
  /** Most files; default 10,000. */
  maxFiles?: number;
}

const decoder = new TextDecoder();

function field(block: Uint8Array, start: number, length: number): string {
  const bytes = block.subarray(start, start + length);
  const end = bytes.indexOf(0);
  return decoder.decode(end === -1 ? bytes : bytes.subarray(0, end));
}

function octal(block: Uint8Array, start: number, length: number): number {
  const text = field(block, start, length).trim();
  if (!/^[0-7]*$/.test(text)) throw new ChartArchiveError("the chart archive is not a tar file");
  return text ? parseInt(text, 8) : 0;
}

/** Values of a pax extended header (`<len> key=value\n` records). */
function paxRecords(data: Uint8Array): Record<string, string> {
  const out: Record<string, string> = {};
  const text = decoder.decode(data);
  for (const line of text.split("\n")) {
    const m = /^\d+ ([^=]+)=(.*)$/s.exec(line);
    if (m) out[m[1]!] = m[2]!;
  }
  return out;
}

/** Refuses a path that is absolute or escapes; returns it normalised (no `.` parts, no trailing slash). */
function safePath(name: string): string {
  if (name.startsWith("/") || /^[a-zA-Z]:[\\/]/.test(name) || name.includes("\\")) {
    throw new ChartArchiveError(`the chart archive holds an absolute path: ${JSON.stringify(name)}`);
  }
  const parts: string[] = [];
  for (const part of name.split("/")) {
    if (part === "" || part === ".") continue;
    if (part === "..") {
      throw new ChartArchiveError(
        `the chart archive holds a path leaving the chart: ${JSON.stringify(name)}`,
      );
    }
    parts.push(part);
  }
  return parts.join("/");
}

/** The chart's files from a .tgz, relative to the chart folder. */
export function unpackChart(tgz: Uint8Array, limits: ChartArchiveLimits = {}): Map<string, Uint8Array> {
  const maxBytes = limits.maxBytes ?? 64 << 20;
  const maxFiles = limits.maxFiles ?? 10_000;
  let tar: Uint8Array;
  try {
    tar = gunzipSync(tgz, { maxOutputLength: maxBytes });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ERR_BUFFER_TOO_LARGE" || err instanceof RangeError) {
      throw new ChartArchiveError(`the chart archive is larger than ${maxBytes} bytes once decompressed`);
    }
    throw new ChartArchiveError(`the chart archive is not gzip: ${(err as Error).message}`);
  }
  const files = new Map<string, Uint8Array>();
  let pax: Record<string, string> = {};
  let longName: string | undefined;
  let top: string | undefined;
  for (let at = 0; at + 512 <= tar.length;) {
    const header = tar.subarray(at, at + 512);
    if (header.every((b) => b === 0)) break;
    const size = octal(header, 124, 12);
    const type = String.fromCharCode(header[156] || 48);
    const data = tar.subarray(at + 512, at + 512 + size);
    if (data.length < size) throw new ChartArchiveError("the chart archive is truncated");
    at += 512 + Math.ceil(size / 512) * 512;
    if (type === "x") {
      pax = paxRecords(data);
      continue;
    }
    if (type === "g") continue;
    if (type === "L") {
      longName = field(data, 0, data.length);
      continue;
    }
    const prefix = field(header, 345, 155);
    const name = pax.path ?? longName ??
      (prefix ? `${prefix}/${field(header, 0, 100)}` : field(header, 0, 100));
    pax = {};
    longName = undefined;
    const path = safePath(name);
    if (type === "5") continue;
    if (type !== "0" && type !== "7") {
      throw new ChartArchiveError(
        `the chart archive holds ${
          type === "2" ? "a symlink" : type === "1" ? "a hard link" : "a special file"
        }: ${JSON.stringify(name)}`,
      );
    }
    const slash = path.indexOf("/");
    if (slash <= 0) {
      throw new ChartArchiveError(`the chart archive has a file outside the chart folder: ${path}`);
    }
    const folder = path.slice(0, slash);
    if (top !== undefined && folder !== top) {
      throw new ChartArchiveError(`the chart archive holds more than one chart folder (${top}, ${folder})`);
    }
    top = folder;
    if (files.size >= maxFiles) {
      throw new ChartArchiveError(`the chart archive holds more than ${maxFiles} files`);
    }
    files.set(path.slice(slash + 1), new Uint8Array(data));
  }
  if (!files.has("Chart.yaml")) throw new ChartArchiveError("the chart archive has no Chart.yaml");
  return files;
}
