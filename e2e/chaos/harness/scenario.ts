import type { ChaosOptions } from './options.js';
import type { Stack, StackOptions } from './stack.js';

type Target = { atMost: number } | { atLeast: number };

/** The scenario's own measurement, with its target (docs/reliability.md) when it has one. */
export interface Figure {
  label: string;
  value: number | null;
  unit: string;
  target?: Target;
  /**
   * In the short run the figure is only reported, not judged: its window is
   * too short for the number to mean what the target means (a p99 or a
   * throughput ratio over a few seconds of a loaded machine).
   */
  reportedOnlyWhenShort?: boolean;
}

/** A pass/fail property of the run (a process that must not exit, a status that must be 429, …): fails the run in both modes. */
export interface Check {
  name: string;
  ok: boolean;
  detail?: string;
}

/** One of several faults a scenario injects in turn, with its own recovery (a row of its own in the table). */
export interface Phase {
  name: string;
  recoveryMs: number | null;
  /** What the recovery is made of, as the table's figure column says it. */
  detail: string;
}

interface Outcome {
  /** Seconds from the fault until the service did its work again (the scenario says what that means); null when not measured. */
  recoveryMs: number | null;
  figure: Figure;
  checks: Check[];
  notes: string[];
  phases?: Phase[];
}

export interface RunContext {
  short: boolean;
  /** The run's options (a scenario's own knobs: the world's rate and sizes, the cluster). */
  options: ChaosOptions;
  log(message: string): void;
  /** `short` or `full` value of a knob. */
  pick<T>(short: T, full: T): T;
}

export interface Scenario {
  name: string;
  /** Runs on the Redis Cluster too (`--cluster`); the others need the single private Redis (they stop and restart it). */
  cluster?: boolean;
  /** The deployment it needs (platforms, users, limits in its environment), by run length. */
  stack?: (short: boolean) => StackOptions;
  /** How long the service may take to drain after the scenario (default 60 s full, 45 s short). */
  drainTimeoutMs?: number;
  run(stack: Stack, ctx: RunContext): Promise<Outcome>;
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Checks that every process the scenario did not end on purpose is still running. */
export function noCrashes(stack: Stack): Check {
  const crashed = stack.processes.filter((process) => process.exit && !process.killedOnPurpose);
  return {
    name: 'no process exited on its own',
    ok: crashed.length === 0,
    detail:
      crashed
        .map((process) => `${process.name} exited (${process.exit!.code ?? process.exit!.signal}); see ${process.logFile}`)
        .join('; ') || undefined,
  };
}

export function judge(figure: Figure): boolean | undefined {
  if (!figure.target) return undefined;
  if (figure.value === null || !Number.isFinite(figure.value)) return false;
  return 'atMost' in figure.target ? figure.value <= figure.target.atMost : figure.value >= figure.target.atLeast;
}

export const targetText = (figure: Figure) =>
  figure.target
    ? `${'atMost' in figure.target ? '<=' : '>='} ${'atMost' in figure.target ? figure.target.atMost : figure.target.atLeast} ${figure.unit}`
    : '—';

/** Milliseconds as seconds with one decimal (null stays null). */
export const seconds = (ms: number | null) => (ms === null ? null : Math.round(ms / 100) / 10);

/** A note when the open-loop load could not send everything it meant to. */
export const deferred = (count: number) =>
  count > 0 ? [`${count} events deferred by the load generator (in-flight cap reached)`] : [];

/** Statuses as `200×12, 503×4` (0 is no answer at all). */
export function countStatuses(statuses: number[]): string {
  const counts = new Map<number, number>();
  for (const status of statuses) counts.set(status, (counts.get(status) ?? 0) + 1);
  return (
    [...counts]
      .sort(([a], [b]) => a - b)
      .map(([status, n]) => `${status === 0 ? 'no answer' : status}×${n}`)
      .join(', ') || 'none'
  );
}
