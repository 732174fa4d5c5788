import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectRoot } from '../../shared/db/project-root.js';

// `redocly lint` with the recommended rules (redocly.yaml) over both
// documents, exported by the built exporter as `npm run lint:openapi` does.

const run = promisify(execFile);
const root = projectRoot();
const redocly = join(root, 'node_modules/@redocly/cli/bin/cli.js');

// Warnings we keep, with the reason: the probes answer 200 or 503 and nothing
// else, so a 4xx response would document something that cannot happen. The
// advertiser's stats read is the path §17 gives it; it can only meet the active
// read at /v1/quest-chains/active/stats, and `active` is never a chain id (a UUID).
const ACCEPTED_WARNINGS = [
  'operation-4xx-response #/paths/~1healthz/get/responses',
  'operation-4xx-response #/paths/~1readyz/get/responses',
  'no-ambiguous-paths #/paths/~1v1~1quest-chains~1{questChainId}~1stats',
];

interface LintReport {
  totals: { errors: number; warnings: number };
  problems: { ruleId: string; severity: string; message: string; location: { pointer: string }[] }[];
}

let directory: string;
beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 'qcr-openapi-lint-'));
  await run(process.execPath, [
    join(root, 'dist/api/operator/export-openapi.js'),
    join(directory, 'openapi.json'),
    join(directory, 'admin-openapi.json'),
  ]);
});
afterAll(() => rm(directory, { recursive: true, force: true }));

async function lint(file: string): Promise<LintReport> {
  const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' };
  // Exit status 1 means "errors found": the report on stdout says which, so read it either way.
  const output = await run(
    process.execPath,
    [redocly, 'lint', '--format=json', '--config', join(root, 'redocly.yaml'), join(directory, file)],
    { env, cwd: root },
  ).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? '' }));
  return JSON.parse(output.stdout) as LintReport;
}

const describeProblem = (problem: LintReport['problems'][number]) => `${problem.ruleId} ${problem.location[0]?.pointer ?? ''}`;

describe('redocly lint (recommended rules)', () => {
  it.each(['openapi.json', 'admin-openapi.json'])('%s: no errors, and no warnings beyond the accepted ones', async (file) => {
    const report = await lint(file);
    const errors = report.problems
      .filter((problem) => problem.severity === 'error')
      .map((problem) => `${describeProblem(problem)}: ${problem.message}`);
    expect(errors).toEqual([]);
    expect(report.totals.errors).toBe(0);
    const warnings = report.problems.filter((problem) => problem.severity === 'warn').map(describeProblem);
    expect(warnings.filter((warning) => !ACCEPTED_WARNINGS.includes(warning))).toEqual([]);
  });
});
