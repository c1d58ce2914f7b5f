/**
 * Runs an image's file system the way a container runtime would, without one: a private mount namespace
 * (`unshare -m`) in which the unpacked root is bind-mounted read-only, with /proc, /dev and tmpfs volumes
 * on top, then `chroot --userspec` into it as the image's user. Needs root (the tests run as root) and
 * util-linux's unshare; `chrootSkipReason` says when they are missing.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import { join } from "node:path";

export function chrootSkipReason(): string | false {
  if (process.getuid?.() !== 0) return "running an image's file system needs root (chroot, mounts)";
  try {
    execFileSync("unshare", ["-m", "true"], { stdio: "ignore" });
  } catch {
    return "unshare -m is not permitted here (no CAP_SYS_ADMIN)";
  }
  return false;
}

export interface ChrootOptions {
  /** uid:gid to run as. */
  user: string;
  env: Record<string, string>;
  /** Paths inside the root that get a fresh tmpfs owned by `user` (the image's volumes). */
  volumes: string[];
}

const quote = (s: string) => `'${s.replaceAll("'", `'\\''`)}'`;

/** Host commands by absolute path: the process's PATH is the image's, which has no /usr/sbin. */
const HOST_PATH = "/usr/sbin:/usr/bin:/sbin:/bin";
const which = (cmd: string) =>
  execFileSync("sh", ["-c", `command -v ${cmd}`], { env: { PATH: HOST_PATH }, encoding: "utf8" }).trim();

/** Starts `argv` in `root`; the whole mount namespace goes away with the process. */
export function startInChroot(root: string, argv: string[], o: ChrootOptions): ChildProcess {
  const [uid, gid] = o.user.split(":");
  for (const d of ["proc", "dev", ...o.volumes.map((v) => v.replace(/^\//, ""))]) {
    if (!existsSync(join(root, d))) mkdirSync(join(root, d), { recursive: true });
  }
  const mount = which("mount");
  const script = [
    `${mount} --bind ${quote(root)} ${quote(root)}`,
    `${mount} -o remount,bind,ro ${quote(root)}`,
    `${mount} -t proc proc ${quote(join(root, "proc"))}`,
    `${mount} --rbind /dev ${quote(join(root, "dev"))}`,
    ...o.volumes.map((v) =>
      `${mount} -t tmpfs -o uid=${uid},gid=${gid},mode=${v === "/tmp" ? "1777" : "0700"} tmpfs ${
        quote(join(root, v))
      }`
    ),
    `exec ${which("chroot")} --userspec=${o.user} ${quote(root)} ${argv.map(quote).join(" ")}`,
  ].join(" && ");
  return spawn(which("unshare"), ["-m", which("sh"), "-c", script], {
    env: { PATH: HOST_PATH, ...o.env },
    stdio: ["ignore", "pipe", "pipe"],
  });
}
