import type { ActiveChainProgress, ActiveChains } from '../../../../core/quest-chains/read-active-chains.js';
import type { ChainDefinition } from '../../../../shared/db/chain-store.js';
import { isoMillisOrNull, toQuestChainResponse, toTaskResponse } from '../../shared-shapes.js';
import {
  toClaimableTaskResponse,
  toFixedRewardResponse,
  toRewardStandingResponse,
  toTaskStandingResponse,
  toUserProgressResponse,
} from './schema.js';

/**
 * GET active's body as JSON text: the text JSON.stringify gives for
 * successBody(toActiveChainsResponse(answer)) (active-json.test.ts holds the
 * two equal), made for a read that misses the answer cache. What a chain's
 * definition fixes (the chain, its tasks, its reward with its prizes: most of
 * an answer's bytes) is turned into text once per loaded definition and kept
 * beside it; a read then writes only what the user's progress decides. Before,
 * every miss built the whole answer as objects and stringified it: with the
 * world's 15 chains of 3-5 tasks a platform that was about half the API's CPU
 * per miss (docs/performance.md).
 */
export function activeChainsJson(answer: ActiveChains, livemode: boolean | undefined): string {
  const data =
    `{"liveUpdates":${JSON.stringify({ token: answer.liveToken, baselineTimestamp: isoMillisOrNull(answer.baselineUs) })}` +
    `,"quest_chains":[${answer.chains.map(chainJson).join(',')}]` +
    `,"claimable_tasks":${JSON.stringify(answer.claimableTasks.map(toClaimableTaskResponse))}` +
    `,"user":${JSON.stringify({ exists: answer.userId !== null })}}`;
  // successBody's envelope: `livemode` only where the caller's credential says it.
  return livemode === undefined ? `{"success":true,"data":${data}}` : `{"success":true,"livemode":${livemode},"data":${data}}`;
}

/** A definition's fixed parts as text: each object left open (no closing brace), for the user's part to close it. */
interface FixedText {
  /** `{"quest_chain":{…},"tasks":[` */
  head: string;
  /** Each task's own fields, in task order. */
  tasks: string[];
  /**
   * Each task's whole text for a standing with no progress to show (a task
   * that is not counted, summed or streak): one of three, by status, made on
   * first use. Most tasks of most reads are such, and their text is then
   * shared instead of written again on each read.
   */
  withoutProgress: Map<string, string>[];
  /** The chain reward's fixed fields with its prizes; null without a reward. */
  reward: string | null;
}

// Definitions are never changed once loaded (the chain cache loads new objects), so their text is kept by identity.
const fixedTexts = new WeakMap<ChainDefinition, FixedText>();

function fixedText(definition: ChainDefinition): FixedText {
  let fixed = fixedTexts.get(definition);
  if (fixed === undefined) {
    fixed = {
      head: `{"quest_chain":${JSON.stringify(toQuestChainResponse(definition.chain))},"tasks":[`,
      tasks: definition.tasks.map((task) => open(toTaskResponse(task))),
      withoutProgress: definition.tasks.map(() => new Map()),
      reward: definition.reward === null ? null : open(toFixedRewardResponse(definition.reward)),
    };
    fixedTexts.set(definition, fixed);
  }
  return fixed;
}

function chainJson(standing: ActiveChainProgress): string {
  const { definition } = standing;
  const fixed = fixedText(definition);
  const tasks = definition.tasks.map((task, i) => taskJson(fixed, i, task.id, standing));
  const reward = fixed.reward === null ? 'null' : close(fixed.reward, toRewardStandingResponse(standing));
  return `${fixed.head}${tasks.join(',')}],"user_progress":${JSON.stringify(toUserProgressResponse(standing))},"chain_reward":${reward}}`;
}

function taskJson(fixed: FixedText, index: number, taskId: string, standing: ActiveChainProgress): string {
  const standingOf = toTaskStandingResponse(taskId, standing);
  if (standingOf.progress !== null) return close(fixed.tasks[index]!, standingOf);
  const shared = fixed.withoutProgress[index]!;
  let text = shared.get(standingOf.user_status);
  if (text === undefined) {
    text = close(fixed.tasks[index]!, standingOf);
    shared.set(standingOf.user_status, text);
  }
  return text;
}

/** An object's text without its closing brace. */
const open = (value: object) => JSON.stringify(value).slice(0, -1);

/**
 * An open object closed with `more`'s members after its own, as
 * JSON.stringify({ ...value, ...more }) writes them. Both always have members
 * here (a task's or a reward's fields; a standing's `progress`, `claimable`).
 */
const close = (opened: string, more: object) => `${opened},${JSON.stringify(more).slice(1)}`;
