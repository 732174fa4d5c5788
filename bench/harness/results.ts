import type { CpuUse } from './cpu-meter.js';

/** One figure of the final table: its value, and when it has one, its baseline, ratio and target. */
export interface ResultRow {
  figure: string;
  value: number;
  unit: string;
  p50Ms?: number;
  p99Ms?: number;
  /** CPU seconds per 1,000 requests (or per 1,000 events for batches), by process. */
  cpuPer1k?: CpuUse;
  baseline?: string;
  ratio?: number;
  /** e.g. ">= 0.5" (ratio to the baseline) or "<= 50 ms" (the value itself). */
  target?: string;
  met?: boolean;
  note?: string;
}

export type Target = { atLeast: number } | { atMost: number };

/**
 * The results of a run. Scenarios add rows; a later scenario may look an
 * earlier figure up by name (`get`) to take its own ratio against it.
 */
export class Results {
  readonly rows: ResultRow[] = [];

  add(row: ResultRow): ResultRow {
    this.rows.push(row);
    return row;
  }

  get(figure: string): ResultRow | undefined {
    return this.rows.find((row) => row.figure === figure);
  }

  /** Adds `row` with its ratio to the figure named `baseline` (same unit expected) and whether `target` is met. */
  addRatio(row: ResultRow, baseline: string, target?: Target): ResultRow {
    const reference = this.get(baseline);
    const ratio = reference && reference.value > 0 ? row.value / reference.value : Number.NaN;
    return this.add({ ...row, baseline, ratio, ...judge(ratio, target) });
  }

  /** Adds `row` judged on its own value (a latency bound, say). */
  addBound(row: ResultRow, target: Target, unit = row.unit): ResultRow {
    const judged = judge(row.value, target);
    return this.add({ ...row, ...judged, target: `${judged.target} ${unit}` });
  }

  /** A Markdown table, ready to paste into docs/performance.md. */
  table(): string {
    const header = ['figure', 'value', 'p50 / p99 ms', 'baseline', 'ratio', 'target', 'met', 'CPU-s per 1k: API / PG / Redis'];
    const lines = [`| ${header.join(' | ')} |`, `| ${header.map(() => '---').join(' | ')} |`];
    for (const row of this.rows) {
      const cells = [
        row.figure,
        `${format(row.value)} ${row.unit}`,
        row.p50Ms === undefined ? '' : `${row.p50Ms} / ${row.p99Ms}`,
        row.baseline ?? '',
        row.ratio === undefined ? '' : Number.isFinite(row.ratio) ? row.ratio.toFixed(2) : 'n/a',
        row.target ?? '',
        row.met === undefined ? '' : row.met ? 'met' : '**missed**',
        row.cpuPer1k ? [row.cpuPer1k.api, row.cpuPer1k.postgres, row.cpuPer1k.redis].map((v) => v.toFixed(3)).join(' / ') : '',
      ];
      lines.push(`| ${cells.join(' | ')} |${row.note ? ` ${row.note}` : ''}`);
    }
    return lines.join('\n');
  }
}

function judge(value: number, target?: Target): { target?: string; met?: boolean } {
  if (!target) return {};
  if ('atLeast' in target) return { target: `>= ${target.atLeast}`, met: value >= target.atLeast };
  return { target: `<= ${target.atMost}`, met: value <= target.atMost };
}

const format = (value: number) =>
  Number.isFinite(value)
    ? value >= 100
      ? Math.round(value).toLocaleString('en-US')
      : String(Math.round(value * 100) / 100)
    : 'n/a';
