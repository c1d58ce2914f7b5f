/**
 * The account an installer signs in with, the same way for every tool: the email from `--email` (or
 * `<PREFIX>_EMAIL`), the password from stdin with `--password-stdin`, else `<PREFIX>_PASSWORD`, else
 * asked on the terminal with echo off. Never a flag: a password in argv ends up in shell history and `ps`.
 */
import { canPrompt, CliError, promptLine, promptSecret, readStdin } from "../cli/mod.ts";

export interface Credentials {
  email: string;
  password: string;
}

export interface CredentialOptions {
  /** `--email` (commander fills it from `<PREFIX>_EMAIL` too). */
  email?: string;
  /** No questions: what is missing is a usage error. */
  yes: boolean;
  passwordStdin: boolean;
  /** The tool's environment prefix ("VAULT", "MEMSVC"), for `<PREFIX>_PASSWORD` and the messages. */
  envPrefix: string;
  env: Record<string, string | undefined>;
}

export async function getCredentials(o: CredentialOptions): Promise<Credentials> {
  const ask = canPrompt() && !o.yes && !o.passwordStdin;
  let email = o.email?.trim();
  if (!email) {
    if (!ask) {
      throw new CliError(
        `no email to sign in with: pass --email or set ${o.envPrefix}_EMAIL (or run on a terminal)`,
        2,
      );
    }
    email = await promptLine("Email");
  }
  const passwordEnv = `${o.envPrefix}_PASSWORD`;
  let password: string | undefined;
  if (o.passwordStdin) password = await readStdin();
  else if (o.env[passwordEnv]) password = o.env[passwordEnv];
  else if (ask) password = await promptSecret("Password");
  else {
    throw new CliError(
      `no password to sign in with: set ${passwordEnv}, pipe it to --password-stdin, or run on a terminal`,
      2,
    );
  }
  if (!email || !password) throw new CliError("an email and a password are needed", 2);
  return { email, password };
}
