/**
 * CPU time of a PostgreSQL cluster on this machine (Linux /proc): its postmaster, found by the port in
 * its command line, with its children (backends, background workers) and the children it has reaped.
 * The write benchmark shares two cores between memsvc, PostgreSQL and the load generator, so what each
 * costs per write is what bounds writes/s.
 */
import { readdirSync, readFileSync } from "node:fs";
import { procStat } from "./proc_stat.ts";

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
    const own = procStat(postmaster);
    let ms = own.cpuMs + own.reapedCpuMs;
    for (const pid of pids) {
      try {
        const s = procStat(pid);
        if (s.ppid === postmaster) ms += s.cpuMs;
      } catch {
        // exited meanwhile: its time is the postmaster's reaped children's from now on
      }
    }
    return ms;
  } catch {
    return undefined;
  }
}
