/**
 * CPU time of a PostgreSQL cluster on this machine (Linux /proc): its postmaster, found by the port in
 * its command line, with its children (backends, background workers) and the children it has reaped.
 * The write benchmark shares two cores between memsvc, PostgreSQL and the load generator, so what each
 * costs per write is what bounds writes/s.
 */
import { readdirSync, readFileSync } from "node:fs";

/** user + system ms of a process from /proc/<pid>/stat, with its reaped children's when asked. */
function stat(pid: number, reaped: boolean): { ppid: number; ms: number } {
  const f = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  const ticks = Number(f[11]) + Number(f[12]) + (reaped ? Number(f[13]) + Number(f[14]) : 0);
  return { ppid: Number(f[1]), ms: ticks * 10 };
}

/** The cluster's CPU ms so far, or undefined when its postmaster is not found (not Linux, gone). */
export function postgresCpuMs(port: string | number): number | undefined {
  try {
    const pids = readdirSync("/proc").filter((d) => /^\d+$/.test(d)).map(Number);
    const postmaster = pids.find((pid) => {
      try {
        const cmd = readFileSync(`/proc/${pid}/cmdline`, "utf8");
        return cmd.includes("postgres") && cmd.includes(`port=${port}\0`);
      } catch {
        return false; // exited meanwhile
      }
    });
    if (postmaster === undefined) return undefined;
    let ms = stat(postmaster, true).ms;
    for (const pid of pids) {
      try {
        const s = stat(pid, false);
        if (s.ppid === postmaster) ms += s.ms;
      } catch {
        // exited meanwhile: its time is the postmaster's reaped children's from now on
      }
    }
    return ms;
  } catch {
    return undefined;
  }
}
