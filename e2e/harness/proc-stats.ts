import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

// Clock ticks per second of /proc/<pid>/stat times (100 on every Linux we run on; asked once to be sure).
const CLOCK_TICKS = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** User plus system CPU seconds a process has used so far; NaN once it is gone. */
export function cpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces) start at index 2 (state); utime and stime are fields 14 and 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
  } catch {
    return Number.NaN;
  }
}

function statusKb(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  try {
    const match = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

/** Resident memory now, in MiB. */
export const rssMb = (pid: number) => Math.round(statusKb(pid, 'VmRSS') / 1024);
/** Highest resident memory the process has had, in MiB. */
export const peakRssMb = (pid: number) => Math.round(statusKb(pid, 'VmHWM') / 1024);
