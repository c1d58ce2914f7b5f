import { canPrompt, CliError, promptLine, promptSecret, readStdin } from "../../internal/cli/mod.ts";
import type { Credentials } from "./vault_api.ts";

export interface CredentialOptions {
  /** No questions: the email and password must come from VAULT_EMAIL / VAULT_PASSWORD or stdin. */
  yes: boolean;
  passwordStdin: boolean;
  env: Record<string, string | undefined>;
}

/**
 * The account to sign in with: VAULT_EMAIL and VAULT_PASSWORD when set (unattended runs with --yes),
 * the password from stdin with --password-stdin, else asked on the terminal with echo off. Never a
 * flag: a password in argv ends up in shell history and `ps`.
 */
export async function getCredentials(o: CredentialOptions): Promise<Credentials> {
  const ask = canPrompt() && !o.yes && !o.passwordStdin;
  let email = o.env.VAULT_EMAIL?.trim();
  if (!email) {
    if (!ask) throw new CliError("no email to sign in with: set VAULT_EMAIL (or run on a terminal)", 2);
    email = await promptLine("Email");
  }
  let password: string | undefined;
  if (o.passwordStdin) password = await readStdin();
  else if (o.env.VAULT_PASSWORD) password = o.env.VAULT_PASSWORD;
  else if (ask) password = await promptSecret("Password");
  else {
    throw new CliError(
      "no password to sign in with: set VAULT_PASSWORD, pipe it to --password-stdin, or run on a terminal",
      2,
    );
  }
  if (!email || !password) throw new CliError("an email and a password are needed", 2);
  return { email, password };
}
