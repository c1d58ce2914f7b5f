/**
 * What the benchmarks read of a Linux process in /proc: its line of /proc/<pid>/stat for CPU per
 * operation (name, parent, user + system CPU time, its own and that of the children it has reaped),
 * and the memory lines of /proc/<pid>/status. Both throw when the process is gone (or off Linux).
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

/** Resident memory of a process from /proc/<pid>/status, in MB (not rounded). */
export interface ProcMemory {
  /** VmRSS. */
  rssMb: number;
  /** RssAnon and RssFile: anonymous and file-backed resident pages. */
  anonMb: number;
  fileMb: number;
  /** VmHWM: the highest RSS so far. */
  peakMb: number;
}

export function procMemory(pid: number | "self"): ProcMemory {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const mb = (key: string) =>
    Number(new RegExp(`^${key}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? NaN) / 1024;
  return { rssMb: mb("VmRSS"), anonMb: mb("RssAnon"), fileMb: mb("RssFile"), peakMb: mb("VmHWM") };
}
