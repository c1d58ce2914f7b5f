/**
 * `npm start` / `deno task serve`: the newcomer's way to run memsvc from a clone. Builds
 * dist/memsvc when its sources changed, then runs `dist/memsvc serve` in the foreground on its
 * embedded database in .cache/dev-data (Ctrl-C stops it).
 *
 * memsvc itself refuses to start without a cookie secret, and creates a first admin only when told
 * to. For development this script supplies both, generated once and kept in .cache/dev-secrets.json
 * (git-ignored), and prints how to sign in. Variables already set in the environment win, and
 * nothing here changes what `memsvc serve` requires in production.
 * Extra arguments go to `memsvc serve`, e.g. `npm start -- --port 8080`.
 */
import { spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = join(dirname(fileURLToPath(import.meta.url)), "..");
const CACHE = join(ROOT, ".cache");
const SECRETS = join(CACHE, "dev-secrets.json");

interface DevSecrets {
  cookieSecret: string;
  adminEmail: string;
  adminPassword: string;
}

function devSecrets(): DevSecrets {
  if (existsSync(SECRETS)) return JSON.parse(readFileSync(SECRETS, "utf8"));
  const secrets = {
    cookieSecret: randomBytes(32).toString("hex"),
    adminEmail: "admin@localhost.test",
    adminPassword: randomBytes(12).toString("base64url"),
  };
  mkdirSync(CACHE, { recursive: true });
  writeFileSync(SECRETS, JSON.stringify(secrets, null, 2) + "\n", { mode: 0o600 });
  return secrets;
}

const build = spawnSync(
  join(ROOT, "node_modules", ".bin", "deno"),
  ["run", "--allow-all", "scripts/build.ts", "--if-stale", "memsvc"],
  { cwd: ROOT, stdio: "inherit" },
);
if (build.status !== 0) process.exit(build.status ?? 1);

const secrets = devSecrets();
const env: Record<string, string | undefined> = {
  MEMSVC_DATA_DIR: join(CACHE, "dev-data"),
  MEMSVC_COOKIE_SECRET: secrets.cookieSecret,
  MEMSVC_BOOTSTRAP_ADMIN_EMAIL: secrets.adminEmail,
  MEMSVC_BOOTSTRAP_ADMIN_PASSWORD: secrets.adminPassword,
  ...process.env,
};
const base = env.MEMSVC_BASE_URL ?? `http://${env.MEMSVC_HOST ?? "127.0.0.1"}:${env.MEMSVC_PORT ?? 7778}`;
if (env.MEMSVC_BOOTSTRAP_ADMIN_PASSWORD === secrets.adminPassword) {
  console.log(
    [
      "",
      `memsvc development server: ${base}  (data in .cache/dev-data, secrets in .cache/dev-secrets.json)`,
      `  dashboard:   ${base}/admin`,
      `  first admin: ${secrets.adminEmail} / ${secrets.adminPassword}`,
      `  sign in:     curl -s ${base}/api/auth/sign-in/email -H 'content-type: application/json' \\`,
      `                 -d '{"email":"${secrets.adminEmail}","password":"${secrets.adminPassword}"}'`,
      `  then use the returned token as: Authorization: Bearer ns_<token>`,
      "",
    ].join("\n"),
  );
}

const child = spawn(join(ROOT, "dist", "memsvc"), ["serve", ...process.argv.slice(2)], {
  stdio: "inherit",
  env,
});
// The terminal delivers Ctrl-C to the whole process group; forward TERM ourselves.
process.on("SIGTERM", () => child.kill("SIGTERM"));
process.on("SIGINT", () => {});
child.on("close", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
