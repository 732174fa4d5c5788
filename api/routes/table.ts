import { completeAccountLinkRoute } from './account-links/complete.js';
import { listAccountLinksRoute } from './account-links/list.js';
import { startAccountLinkRoute } from './account-links/start.js';
import { getBacktestRoute } from './admin/backtests/get.js';
import { startQuestChainBacktestRoute } from './admin/backtests/start.js';
import { createCredentialRoute } from './admin/credentials/create.js';
import { listCredentialsRoute } from './admin/credentials/list.js';
import { updateCredentialRoute } from './admin/credentials/update.js';
import { archiveLeaderboardRoute } from './admin/leaderboards/archive.js';
import { createLeaderboardRoute } from './admin/leaderboards/create.js';
import { getLeaderboardRoute } from './admin/leaderboards/get.js';
import { listLeaderboardsRoute } from './admin/leaderboards/list.js';
import { createProviderRoute } from './admin/providers/create.js';
import { listProvidersRoute } from './admin/providers/list.js';
import { updateProviderRoute } from './admin/providers/update.js';
import { createQuestChainRoute } from './admin/quest-chains/create.js';
import { getQuestChainRoute } from './admin/quest-chains/get.js';
import { listQuestChainsRoute } from './admin/quest-chains/list.js';
import { restockPrizeRoute } from './admin/quest-chains/restock.js';
import { rotateDrawSeedRoute } from './admin/quest-chains/rotate-seed.js';
import { getAnyQuestChainStatsRoute } from './admin/quest-chains/stats.js';
import { updateQuestChainRoute } from './admin/quest-chains/update.js';
import { sendEventBatchRoute } from './events/batch.js';
import { reverseEventRoute } from './events/reverse.js';
import { reverseEventsRoute } from './events/reverse-batch.js';
import { sendEventRoute } from './events/send.js';
import { getLivenessRoute } from './health/liveness.js';
import { getReadinessRoute } from './health/readiness.js';
import { listPlatformLeaderboardsRoute } from './leaderboards/list.js';
import { getLeaderboardStandingsRoute } from './leaderboards/read.js';
import { streamLiveUpdatesRoute } from './live/stream.js';
import { getPointsRoute } from './points/read.js';
import { spendPointsRoute } from './points/spend.js';
import { getActiveQuestChainsRoute } from './quest-chains/active/read-active.js';
import { explainQuestChainProgressRoute } from './quest-chains/explain/explain.js';
import { getQuestChainStatsRoute } from './quest-chains/stats/stats.js';
import { claimRewardRoute } from './rewards/claim.js';
import { getDrawRoute } from './rewards/draw.js';
import { listRewardsRoute } from './rewards/list.js';
import type { RouteEntry } from './route-entry.js';
import { resetTestModeDataRoute } from './test-mode/reset.js';
import { registerUserRoute } from './users/register.js';
import { createWebhookEndpointRoute } from './webhook-endpoints/create.js';
import { deleteWebhookEndpointRoute } from './webhook-endpoints/delete.js';
import { listWebhookEndpointsRoute } from './webhook-endpoints/list.js';
import { listWebhookMessagesRoute } from './webhook-endpoints/messages.js';
import { replayWebhookMessageRoute } from './webhook-endpoints/replay.js';

/**
 * Every published route, each with its access (./route-entry.ts), in the
 * order the OpenAPI documents list them within a tag (the documents order
 * the tags themselves). The order does not matter to routing: mountRoutes
 * (./mount-routes.ts) works out which routes the router needs behind a
 * wildcard. A new route is a `defineRoute` in its folder and a line here.
 */
export const ROUTE_TABLE: readonly RouteEntry[] = [
  // Users
  registerUserRoute,
  // Events
  sendEventRoute,
  sendEventBatchRoute,
  reverseEventsRoute,
  reverseEventRoute,
  // Quest chains
  getActiveQuestChainsRoute,
  explainQuestChainProgressRoute,
  getQuestChainStatsRoute,
  // Account links
  startAccountLinkRoute,
  completeAccountLinkRoute,
  listAccountLinksRoute,
  // Rewards
  claimRewardRoute,
  getDrawRoute,
  listRewardsRoute,
  // Points
  getPointsRoute,
  spendPointsRoute,
  // Leaderboards
  listPlatformLeaderboardsRoute,
  getLeaderboardStandingsRoute,
  // Test mode
  resetTestModeDataRoute,
  // Webhooks
  createWebhookEndpointRoute,
  listWebhookEndpointsRoute,
  deleteWebhookEndpointRoute,
  listWebhookMessagesRoute,
  replayWebhookMessageRoute,
  // Live updates
  streamLiveUpdatesRoute,
  // Operations
  getLivenessRoute,
  getReadinessRoute,
  // Admin (its own document)
  createProviderRoute,
  listProvidersRoute,
  updateProviderRoute,
  createCredentialRoute,
  listCredentialsRoute,
  updateCredentialRoute,
  createQuestChainRoute,
  listQuestChainsRoute,
  getQuestChainRoute,
  updateQuestChainRoute,
  restockPrizeRoute,
  rotateDrawSeedRoute,
  getAnyQuestChainStatsRoute,
  startQuestChainBacktestRoute,
  getBacktestRoute,
  createLeaderboardRoute,
  listLeaderboardsRoute,
  getLeaderboardRoute,
  archiveLeaderboardRoute,
];
