/** Where a command writes. Injected so tests can run programs in-process and read what they print. */
export interface Writer {
  write(chunk: string): unknown;
}

export interface Io {
  stdout: Writer;
  stderr: Writer;
}

/** The process's own streams: what every binary uses outside tests. */
export const processIo: Io = { stdout: process.stdout, stderr: process.stderr };
