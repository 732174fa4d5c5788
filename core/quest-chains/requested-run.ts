import { type ChainTiming, requestedRunStart } from '../../shared/domain/recurrence.js';
import { invalidInput } from '../../shared/errors.js';

/** The run a claim or an explanation is about (requestedRunStart); a period_start that names none answers 400 on it. */
export function requestedRun(timing: ChainTiming, asked: bigint | undefined): bigint {
  const runStart = requestedRunStart(timing, asked, BigInt(Date.now()) * 1000n);
  if (typeof runStart === 'string') throw invalidInput(runStart, 'period_start');
  return runStart;
}
