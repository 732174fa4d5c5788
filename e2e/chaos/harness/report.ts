import type { Verdict } from './checker.js';
import { type Check, type Figure, judge, type Phase, targetText } from './scenario.js';

export interface Row {
  scenario: string;
  verdict: Verdict | null;
  recoveryMs: number | null;
  figure: Figure | null;
  checks: Check[];
  notes: string[];
  /** Faults injected in turn, each with its recovery. */
  phases?: Phase[];
  /** The scenario itself failed to run (an exception): always a failure. */
  error?: string;
  drainedMs: number | null;
}

/** How the row's figure is judged: met / missed against its target, or only reported (short run, or no target). */
function figureResult(row: Row, short: boolean): 'met' | 'missed' | 'reported' | 'none' {
  if (!row.figure) return 'none';
  const met = judge(row.figure);
  if (met === undefined) return 'reported';
  if (short && row.figure.reportedOnlyWhenShort) return 'reported';
  return met ? 'met' : 'missed';
}

/** Why the row fails the run (empty: it passes). */
export function failures(row: Row, short: boolean): string[] {
  const reasons: string[] = [];
  if (row.error) reasons.push(`did not complete: ${row.error}`);
  if (row.verdict && row.verdict.lost > 0) reasons.push(`${row.verdict.lost} lost`);
  if (row.verdict && row.verdict.double > 0) reasons.push(`${row.verdict.double} double`);
  for (const check of row.checks)
    if (!check.ok) reasons.push(`check failed: ${check.name}${check.detail ? ` (${check.detail})` : ''}`);
  if (row.verdict && row.drainedMs === null) reasons.push('the service did not drain');
  if (figureResult(row, short) === 'missed') reasons.push(`target missed: ${row.figure!.label}`);
  return reasons;
}

const fmt = (value: number | null) => (value === null || !Number.isFinite(value) ? 'n/a' : String(value));

/** The one table: a Markdown table (pasteable into docs/reliability.md), then each scenario's notes and failures. */
export function renderTable(rows: Row[], short: boolean): string {
  const header = ['scenario', 'events acknowledged', 'lost', 'double', 'recovery', 'figure', 'value', 'target', 'result'];
  const lines = [`| ${header.join(' | ')} |`, `| ${header.map(() => '---').join(' | ')} |`];
  for (const row of rows) {
    const result = figureResult(row, short);
    const failed = failures(row, short).length > 0;
    lines.push(
      `| ${[
        row.scenario,
        row.verdict ? row.verdict.acknowledged.toLocaleString('en-US') : 'n/a',
        row.verdict ? String(row.verdict.lost) : 'n/a',
        row.verdict ? String(row.verdict.double) : 'n/a',
        row.recoveryMs === null ? '—' : `${(row.recoveryMs / 1000).toFixed(1)} s`,
        row.figure?.label ?? '—',
        row.figure
          ? `${fmt(row.figure.value)}${row.figure.unit && row.figure.unit !== '×' ? ` ${row.figure.unit}` : row.figure.unit}`
          : '—',
        row.figure ? targetText(row.figure) : '—',
        `${result === 'missed' ? '**missed**' : result === 'none' ? '—' : result}${failed ? ' · **FAIL**' : ''}`,
      ].join(' | ')} |`,
    );
    for (const phase of row.phases ?? [])
      lines.push(
        `| ${[
          `${row.scenario}: ${phase.name}`,
          '',
          '',
          '',
          phase.recoveryMs === null ? '—' : `${(phase.recoveryMs / 1000).toFixed(1)} s`,
          phase.detail,
          '',
          '',
          'reported',
        ].join(' | ')} |`,
      );
  }
  const details: string[] = [];
  for (const row of rows) {
    const reasons = failures(row, short);
    const indeterminate =
      row.verdict && row.verdict.indeterminate > 0
        ? [`${row.verdict.indeterminate} never acknowledged (${row.verdict.indeterminateStored} of them stored, each once)`]
        : [];
    const items = [
      ...row.notes,
      ...indeterminate,
      ...(row.verdict?.problems ?? []),
      ...reasons.map((reason) => `FAIL: ${reason}`),
    ];
    if (items.length) details.push(`- ${row.scenario}:\n${items.map((item) => `  - ${item}`).join('\n')}`);
  }
  return `${lines.join('\n')}\n\n${details.join('\n')}`;
}
