import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

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

/** The process and every process under it (an API launcher's forked processes), from /proc; empty once it is gone. */
export function processTree(pid: number): number[] {
  const tree: number[] = [];
  const visit = (current: number) => {
    let tasks: string[];
    try {
      tasks = readdirSync(`/proc/${current}/task`);
    } catch {
      return; // gone
    }
    tree.push(current);
    for (const task of tasks) {
      let children = '';
      try {
        children = readFileSync(`/proc/${current}/task/${task}/children`, 'utf8');
      } catch {
        // the thread ended meanwhile
      }
      for (const child of children.trim().split(/\s+/).filter(Boolean)) visit(Number(child));
    }
  };
  visit(pid);
  return tree;
}

/** CPU seconds so far of each of `pids`, by pid: a reading for `cpuSecondsSince` (processes already gone are left out). */
export function cpuReading(pids: Iterable<number>): Map<number, number> {
  const reading = new Map<number, number>();
  for (const pid of pids) {
    const seconds = cpuSeconds(pid);
    if (Number.isFinite(seconds)) reading.set(pid, seconds);
  }
  return reading;
}

/** CPU seconds the processes of `after` used since `before` (one started in between counts from its start). */
export function cpuSecondsSince(before: ReadonlyMap<number, number>, after: ReadonlyMap<number, number>): number {
  let seconds = 0;
  for (const [pid, now] of after) seconds += now - (before.get(pid) ?? 0);
  return seconds;
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
