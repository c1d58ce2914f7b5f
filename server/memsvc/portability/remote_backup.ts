/**
 * `memsvc backup --url`: the backup a running server writes (GET /v1/admin/backup, an admin session
 * token as bearer), saved to a file and checked while it is written: a stream cut short has no end line.
 */
import { CliError } from "../../../internal/cli/mod.ts";
import { readLines, writeOutput } from "./lines.ts";

export async function backupThroughServer(
  base: string,
  file: string,
  token: string | undefined,
): Promise<void> {
  let url: URL;
  try {
    url = new URL("/v1/admin/backup", base);
  } catch {
    throw new CliError(`--url ${base} is not a URL`, 2);
  }
  const headers: Record<string, string> = {};
  if (token) headers.authorization = `Bearer ${token}`;
  let res: Response;
  try {
    res = await fetch(url, { headers });
  } catch (err) {
    throw new CliError(`cannot reach ${url.origin}: ${(err as Error).message}`);
  }
  if (res.status !== 200 || !res.body) {
    const detail = await res.text().catch(() => "");
    const hint = res.status === 401 || res.status === 403
      ? " (set MEMSVC_TOKEN to an admin's session token, ns_...)"
      : "";
    throw new CliError(`${url} answered ${res.status}${hint}: ${detail.slice(0, 200)}`);
  }
  // Check the stream while it is written: a backup cut short by the server has no end line.
  const [toFile, toCheck] = res.body.tee();
  const check = (async () => {
    let last = "";
    for await (const line of readLines(toCheck)) last = line;
    if (!last.startsWith('{"type":"end"')) throw new CliError("the server's backup stream was cut short");
  })();
  await Promise.all([writeOutput(file, toFile), check]);
}
