/**
 * A failure a command reports on purpose: `run` prints `error: <message>` and exits with `exitCode`.
 * Usage errors (bad flags or arguments found by a command's validation) go through
 * `command.error(message)` instead, so they exit 2 with the same hint commander's own checks print.
 */
export class CliError extends Error {
  override name = "CliError";

  constructor(message: string, readonly exitCode = 1) {
    super(message);
  }
}
