import { findDraw, type StoredDraw } from '../../shared/db/draw-store.js';
import { dateToMicros } from '../../shared/domain/timestamp.js';
import { notFound } from '../../shared/errors.js';
import type { CoreDeps } from '../deps.js';

/**
 * GET /v1/rewards/draws/{claim_id} (docs/mystery-boxes.md): a mystery box
 * draw's inputs and outcome, with its seed once revealed. Only the claimer's
 * platform sees it; a claim of another platform, or one without a draw,
 * answers like an unknown one.
 */
export async function getDraw(deps: Pick<CoreDeps, 'db'>, input: { platformId: string; claimId: string }): Promise<StoredDraw> {
  const draw = await findDraw(deps.db, input.platformId, input.claimId, dateToMicros(new Date()));
  if (!draw) throw notFound(`No mystery box draw for claim ${input.claimId}`, 'claim_id');
  return draw;
}
