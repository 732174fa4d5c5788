import { type ChainTiming, requestedPeriod } from '../../shared/domain/recurrence.js';
import { invalidInput } from '../../shared/errors.js';

/** The run a claim or an explanation is about (requestedPeriod); a period_start that names none answers 400 on it. */
export function requestedRun(timing: ChainTiming, asked: bigint | undefined): bigint {
  const period = requestedPeriod(timing, asked, BigInt(Date.now()) * 1000n);
  if (typeof period === 'string') throw invalidInput(period, 'period_start');
  return period;
}
