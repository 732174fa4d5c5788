export {
  UTC_TIMESTAMP_PATTERN,
  dateToMicros,
  formatIsoMicros,
  formatIsoMillis,
  parseUtcTimestamp,
} from './timestamp.js';
export { inChainWindow, taskMatches, taskMismatch } from './conditions.js';
export type { ChainWindow, CountingEvent, TaskCondition, TaskMismatch } from './conditions.js';
export { compareEventPositions, countsFor } from './counting.js';
export type { ChainScope, EventPosition, MatchUser, SourcedEvent } from './counting.js';
export { advanceWalk, computeCompletions, isRelevant, recomputeWalk } from './progress.js';
export type { ChainRules, Completion, WalkAdvance, WalkObserver, WalkState } from './progress.js';
export { isChainCompleted, taskStatuses, userProgress } from './chain-view.js';
export type { ProgressStatus, TaskUserStatus, UserProgress } from './chain-view.js';
export { EXPLAIN_CANDIDATES, explainChain } from './explain.js';
export type { Candidate, ChainExplanation, ExplainEvent, TaskExplanation, Verdict } from './explain.js';
