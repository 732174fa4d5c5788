import type { CountingEvent, TaskCondition } from './conditions.js';
import type { ChainRules } from './walk.js';

// Terse builders for the rule tables of the domain's tests: only what a row cares about is written out.

export const task = (sequenceNumber: number, eventType: string, over: Partial<TaskCondition> = {}): TaskCondition => ({
  id: `t${sequenceNumber}`,
  sequenceNumber,
  eventType,
  minAmount: null,
  currency: null,
  afterUs: null,
  beforeUs: null,
  ...over,
});

export const ev = (id: string, eventType: string, occurredUs: bigint, over: Partial<CountingEvent> = {}): CountingEvent => ({
  id,
  eventType,
  occurredUs,
  amount: null,
  currency: null,
  ...over,
});

export const chain = (tasks: TaskCondition[], over: Partial<ChainRules> = {}): ChainRules => ({
  allowAnyOrder: false,
  startUs: 0n,
  endUs: 1_000n,
  tasks,
  ...over,
});
