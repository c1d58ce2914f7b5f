/**
 * A process's line of Linux's /proc/<pid>/stat, as the benchmarks read it for CPU per operation: its
 * name, parent, and user + system CPU time (its own, and that of the children it has reaped).
 * Throws when the process is gone (or off Linux).
 */
import { readFileSync } from "node:fs";

export interface ProcStat {
  comm: string;
  ppid: number;
  /** utime + stime, ms. */
  cpuMs: number;
  /** cutime + cstime (children waited for), ms. */
  reapedCpuMs: number;
}

/** Clock ticks per second of /proc's times (USER_HZ, 100 on Linux). */
const TICK_MS = 10;

export function procStat(pid: number): ProcStat {
  const line = readFileSync(`/proc/${pid}/stat`, "utf8");
  // The name is in parentheses and may itself hold spaces or ")": the fields follow the last ")".
  const close = line.lastIndexOf(")");
  const f = line.slice(close + 2).split(" ");
  return {
    comm: line.slice(line.indexOf("(") + 1, close),
    ppid: Number(f[1]),
    cpuMs: (Number(f[11]) + Number(f[12])) * TICK_MS,
    reapedCpuMs: (Number(f[13]) + Number(f[14])) * TICK_MS,
  };
}
