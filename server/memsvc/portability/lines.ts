/**
 * JSON Lines in and out of files or stdio, gzip'd or not (a gzip file is recognised by its magic
 * bytes, so `restore` and `import` take either). Web streams only, so the same code serves a file
 * and an HTTP response body.
 */
import { createReadStream, createWriteStream } from "node:fs";
import { rename, rm } from "node:fs/promises";
import { Readable, Writable } from "node:stream";

/** A sink of text lines; `write` resolves when the line is accepted (backpressure). */
export interface LineSink {
  write(line: string): Promise<void>;
}

/** Lines of a byte stream (gzip'd or plain), without their newline; blank lines are skipped. */
export async function* readLines(bytes: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const reader = bytes.getReader();
  const first = await reader.read();
  const head = first.done ? new Uint8Array() : first.value;
  const replay = new ReadableStream<Uint8Array>({
    start(controller) {
      if (head.length) controller.enqueue(head);
    },
    async pull(controller) {
      const next = await reader.read();
      if (next.done) controller.close();
      else controller.enqueue(next.value);
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
  const gzipped = head.length >= 2 && head[0] === 0x1f && head[1] === 0x8b;
  const text = (gzipped ? replay.pipeThrough(gunzip()) : replay)
    .pipeThrough(new TextDecoderStream());
  let pending = "";
  for await (const chunk of text as unknown as AsyncIterable<string>) {
    pending += chunk;
    let nl: number;
    while ((nl = pending.indexOf("\n")) >= 0) {
      const line = pending.slice(0, nl).trim();
      pending = pending.slice(nl + 1);
      if (line) yield line;
    }
  }
  if (pending.trim()) yield pending.trim();
}

// DecompressionStream's writable side is typed for BufferSource; every Uint8Array is one.
const gunzip = () => new DecompressionStream("gzip") as unknown as TransformStream<Uint8Array, Uint8Array>;

/** A file's bytes, or stdin's for "-". */
export function openInput(path: string): ReadableStream<Uint8Array> {
  const stream = path === "-" ? process.stdin : createReadStream(path);
  return Readable.toWeb(stream) as unknown as ReadableStream<Uint8Array>;
}

/**
 * Writes a byte stream to `path` through a temporary file renamed into place at the end, so a
 * failed run never leaves a truncated file under the final name; "-" writes to stdout.
 */
export async function writeOutput(path: string, bytes: ReadableStream<Uint8Array>): Promise<void> {
  if (path === "-") {
    await bytes.pipeTo(Writable.toWeb(process.stdout) as WritableStream<Uint8Array>, { preventClose: true });
    return;
  }
  const temp = `${path}.partial-${process.pid}`;
  try {
    await bytes.pipeTo(
      Writable.toWeb(createWriteStream(temp, { mode: 0o600 })) as WritableStream<Uint8Array>,
    );
    await rename(temp, path);
  } catch (err) {
    await rm(temp, { force: true });
    throw err;
  }
}

/**
 * A byte stream of the lines `produce` writes (gzip'd when asked). Production runs as the stream is
 * read; an error in `produce` errors the stream.
 */
export function lineStream(
  produce: (sink: LineSink) => Promise<unknown>,
  options: { gzip?: boolean } = {},
): ReadableStream<Uint8Array> {
  const { readable, writable } = new TransformStream<string, string>();
  const writer = writable.getWriter();
  const sink: LineSink = {
    async write(line) {
      await writer.ready;
      await writer.write(`${line}\n`);
    },
  };
  produce(sink).then(() => writer.close(), (err) => writer.abort(err)).catch(() => {});
  const bytes = readable.pipeThrough(new TextEncoderStream());
  return options.gzip
    ? bytes.pipeThrough(new CompressionStream("gzip") as unknown as TransformStream<Uint8Array, Uint8Array>)
    : bytes;
}
