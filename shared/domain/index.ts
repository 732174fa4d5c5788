export {
  UTC_TIMESTAMP_PATTERN,
  dateToMicros,
  formatIsoMicros,
  formatIsoMillis,
  parseUtcTimestamp,
} from './timestamp.js';
export { inChainWindow, taskMatches } from './conditions.js';
export type { ChainWindow, CountingEvent, TaskCondition } from './conditions.js';
export { compareEvents, computeCompletions } from './progress.js';
export type { ChainRules, Completion } from './progress.js';
export { taskStatuses, userProgress } from './chain-view.js';
export type { ProgressStatus, TaskUserStatus, UserProgress } from './chain-view.js';
