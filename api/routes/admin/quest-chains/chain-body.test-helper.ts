// Builders of POST /admin/v1/quest-chains bodies for tests.

export const DAY_MS = 24 * 60 * 60 * 1000;
export const iso = (ms: number) => new Date(ms).toISOString();

export interface TaskSpec {
  event?: string;
  min_amount?: number;
  currency?: string;
  after?: string;
  before?: string;
  sequence_number?: number;
}

export function taskBody(spec: TaskSpec, index: number) {
  return {
    sequence_number: spec.sequence_number ?? index + 1,
    name: `Task ${index + 1}`,
    condition_event_type: spec.event ?? 'transaction',
    ...(spec.min_amount !== undefined ? { condition_min_amount: spec.min_amount } : {}),
    ...(spec.currency !== undefined ? { condition_currency: spec.currency } : {}),
    ...(spec.after !== undefined ? { condition_after_timestamp: spec.after } : {}),
    ...(spec.before !== undefined ? { condition_before_timestamp: spec.before } : {}),
    reward_type: 'points',
    reward_name: `${(index + 1) * 10} points`,
    reward_value: (index + 1) * 10,
  };
}

/** A valid chain body running from a day ago to a day from now, unless overridden. */
export function chainBody(
  platformId: string,
  advertiserId: string,
  options: { tasks?: TaskSpec[]; start?: string; end?: string; status?: string; anyOrder?: boolean; reward?: boolean; name?: string } = {},
) {
  const now = Date.now();
  return {
    platform_id: platformId,
    advertiser_id: advertiserId,
    name: options.name ?? 'Welcome chain',
    description: 'Do three things',
    logo_url: 'https://example.com/logo.png',
    start_date: options.start ?? iso(now - DAY_MS),
    end_date: options.end ?? iso(now + DAY_MS),
    ...(options.status !== undefined ? { status: options.status } : {}),
    ...(options.anyOrder !== undefined ? { allow_any_order: options.anyOrder } : {}),
    tasks: (options.tasks ?? [{ event: 'registration' }, { event: 'kyc' }, { event: 'transaction' }]).map(taskBody),
    ...(options.reward === false ? {} : { chain_reward: { type: 'mystery_box', name: 'Mystery box', value: 50 } }),
  };
}
