/**
 * Questions on the terminal (installers, confirmations). Prompts go to stderr so stdout stays the command's
 * result; secrets are read with echo off, so a password never shows on screen. Passwords come only
 * from here or from stdin, never from a flag, which would leave them in shell history and `ps`.
 */
import { createInterface } from "node:readline/promises";

/** Whether there is a person to ask: stdin is a terminal. */
export function canPrompt(): boolean {
  return process.stdin.isTTY === true;
}

/** Asks for one line; an empty answer takes `fallback`. */
export async function promptLine(question: string, fallback = ""): Promise<string> {
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    const answer = (await rl.question(fallback ? `${question} [${fallback}]: ` : `${question}: `)).trim();
    return answer || fallback;
  } finally {
    rl.close();
  }
}

/** Asks for a secret with echo off (raw mode); Ctrl-C cancels. */
export function promptSecret(question: string): Promise<string> {
  const input = process.stdin;
  // Echo off before the question shows: an answer typed the moment it appears must not be echoed.
  input.setRawMode(true);
  process.stderr.write(`${question}: `);
  input.setEncoding("utf8");
  input.resume();
  return new Promise((resolve, reject) => {
    let value = "";
    const finish = () => {
      input.off("data", onData);
      input.setRawMode(false);
      input.pause();
      process.stderr.write("\n");
    };
    const onData = (chunk: string) => {
      for (const ch of chunk) {
        if (ch === "\r" || ch === "\n") {
          finish();
          return resolve(value);
        }
        if (ch === "\u0003") {
          finish();
          return reject(new Error("cancelled"));
        }
        if (ch === "\u007f" || ch === "\b") value = [...value].slice(0, -1).join("");
        else if (ch >= " ") value += ch;
      }
    };
    input.on("data", onData);
  });
}

/** Asks a yes/no question; Enter means yes. */
export async function confirm(question: string): Promise<boolean> {
  return /^(y|yes)?$/i.test(await promptLine(`${question} [Y/n]`));
}

/** Everything on stdin, without the final line break (`printf '%s\n' "$PASSWORD" | tool --password-stdin`). */
export async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(Buffer.from(chunk));
  return Buffer.concat(chunks).toString("utf8").replace(/\r?\n$/, "");
}
