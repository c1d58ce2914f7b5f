/**
 * Framing of the MCP stdio transport: one JSON-RPC message per line, UTF-8, no embedded newlines.
 * Chunks from a pipe split lines (and multi-byte characters) anywhere, so bytes are decoded and
 * buffered until a newline completes a line.
 */

/** Splits a stream of chunks into lines. Blank lines are skipped; a trailing `\r` is dropped. */
export class LineSplitter {
  #decoder = new TextDecoder();
  #partial = "";

  /** Adds a chunk and returns the lines it completed. */
  push(chunk: Uint8Array | string): string[] {
    const text = this.#partial +
      (typeof chunk === "string" ? chunk : this.#decoder.decode(chunk, { stream: true }));
    const lines = text.split("\n");
    this.#partial = lines.pop()!;
    return lines.map(trimCr).filter((line) => line.trim() !== "");
  }

  /** The last line, when the input ended without a final newline. */
  end(): string[] {
    const rest = trimCr(this.#partial + this.#decoder.decode());
    this.#partial = "";
    return rest.trim() === "" ? [] : [rest];
  }
}

/** The lines of a byte or text stream, such as process.stdin. */
export async function* readLines(input: AsyncIterable<Uint8Array | string>): AsyncGenerator<string> {
  const splitter = new LineSplitter();
  for await (const chunk of input) yield* splitter.push(chunk);
  yield* splitter.end();
}

/** One message as a line of the stdio transport. */
export function toLine(message: unknown): string {
  return JSON.stringify(message) + "\n";
}

function trimCr(line: string): string {
  return line.endsWith("\r") ? line.slice(0, -1) : line;
}
