import { spawnSync } from 'node:child_process';
import { projectRoot } from '../db/project-root.js';

/**
 * End-to-end tests spawn the built processes (dist/api/main.js,
 * dist/worker/main.js). `npm test` has just built them, so this is a no-op
 * there: `tsc -b` compares the sources with dist/'s build info and compiles
 * only when dist/ is missing or older than a source, which keeps a lone
 * `npx vitest run <e2e file>` working after an edit. Type errors do not stop
 * the emit or the tests here: `npm test` type-checks first and that is the gate.
 */
export default function setup() {
  const started = Date.now();
  const result = spawnSync(process.execPath, ['node_modules/typescript/bin/tsc', '-b', 'tsconfig.build.json', '--verbose'], {
    cwd: projectRoot(),
    encoding: 'utf8',
  });
  const output = `${result.stdout}${result.stderr}`;
  if (result.status !== 0) process.stderr.write(`build reported problems (tests run on what was emitted):\n${output}\n`);
  else if (output.includes('Building project')) process.stderr.write(`dist/ was older than the sources: rebuilt in ${Date.now() - started} ms\n`);
}
