export type { ProgressStatus, TaskUserStatus, UserProgress } from './chain-view.js';
export { isChainCompleted, taskStatuses, userProgress } from './chain-view.js';
export type { ChainWindow, CountingEvent, TaskCondition, TaskMismatch } from './conditions.js';
export { inChainWindow, taskMatches, taskMismatch } from './conditions.js';
export type { EventPosition } from './counting.js';
export { compareEventPositions } from './counting.js';
export type { Candidate, ChainExplanation, ExplainEvent, TaskExplanation, Verdict } from './explain.js';
export { EXPLAIN_CANDIDATES, explainChain } from './explain.js';
export type { SenderUserId, ServiceUserId } from './ids.js';
export { senderUserId, serviceUserId } from './ids.js';
export type { ChainParties, ChainScope, EventSource, MatchUser, SourcedEvent, UserSource } from './sources.js';
export { countingFilter, countsFor, everySourceOf, sourceKey, sourcesOf, usersBySource } from './sources.js';
export {
  dateToMicros,
  formatIsoMicros,
  formatIsoMillis,
  parseUtcTimestamp,
  UTC_TIMESTAMP_PATTERN,
} from './timestamp.js';
export type { ChainRules, Completion, WalkAdvance, WalkObserver, WalkState } from './walk.js';
export { advanceWalk, computeCompletions, isRelevant, recomputeWalk } from './walk.js';
