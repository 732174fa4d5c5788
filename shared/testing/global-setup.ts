import { execFileSync } from 'node:child_process';
import { projectRoot } from '../db/project-root.js';

/** Compiles api/, worker/ and shared/ into dist/ so end-to-end tests run the real processes. */
export default function setup() {
  execFileSync(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.build.json'], {
    cwd: projectRoot(),
    stdio: 'inherit',
  });
}
