/**
 * Bun's allocator (mimalloc) keeps pages it has freed for reuse and hands them back to the system only
 * after a delay, so a long-running service's RSS shows the high-water mark of its garbage rather than
 * what it holds: gitsync-manager peaked at 318–344 MB over 1,000 Applications with the default and at
 * 214 MB with `MIMALLOC_PURGE_DELAY=0`, at the same CPU (`deno task bench:gitsync`). mimalloc reads its
 * options once, when the process starts, so a long-running command re-executes itself with the option
 * set (execve: same pid, same arguments, signals and exit code unchanged) unless the caller set it.
 */
import { runtime } from "./runtime.ts";
import { isCompiledBinary } from "./worker.ts";

export const PURGE_DELAY_ENV = "MIMALLOC_PURGE_DELAY";

type Execve = (file: string, args: string[], env: Record<string, string | undefined>) => never;

/** Call first in a long-running command: returns only when the allocator already purges promptly. */
export function purgeFreedMemoryPromptly(): void {
  if (runtime !== "bun" || !isCompiledBinary() || process.env[PURGE_DELAY_ENV] !== undefined) return;
  const execve = (process as unknown as { execve?: Execve }).execve;
  if (!execve) return;
  // argv in a compiled binary: ["bun", "/$bunfs/root/<name>", ...the user's arguments].
  execve(process.execPath, [process.execPath, ...process.argv.slice(2)], {
    ...process.env,
    [PURGE_DELAY_ENV]: "0",
  });
}
