import { spawnSync } from 'node:child_process';
import { projectRoot } from '../db/project-root.js';

/**
 * Compiles api/, worker/ and shared/ into dist/ so end-to-end tests run the
 * real processes. Type errors do not stop the emit or the tests here: `npm
 * test` runs the type-check first and that is the gate.
 */
export default function setup() {
  const result = spawnSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json'], {
    cwd: projectRoot(),
    encoding: 'utf8',
  });
  if (result.status !== 0) process.stderr.write(`build reported problems (tests run on what was emitted):\n${result.stdout}${result.stderr}\n`);
}
