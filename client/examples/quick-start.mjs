// Plain JavaScript (no TypeScript, no build step) against a running service:
//   QCR_BASE_URL=http://127.0.0.1:3000 QCR_API_KEY=pk_... QCR_API_SECRET=sk_... node quick-start.mjs [platform-user-id]
// Registers the user, sends an event, reads the active chains and waits for the live stream's `ready`.
// Prints one JSON line; the SDK's test runs this very file against the real service.
import { createQuestChainClient, openLiveUpdates, QuestChainApiError } from '@quest-chains/client';

const baseUrl = process.env.QCR_BASE_URL ?? 'http://127.0.0.1:3000';
const userId = process.argv[2] ?? 'quick-start-user';
const quests = createQuestChainClient({ baseUrl, apiKey: process.env.QCR_API_KEY, apiSecret: process.env.QCR_API_SECRET });

const user = await quests.registerUser({ platform_user_id: userId });
const event = await quests.sendEvent(
  { user_id: userId, event_type: 'registration', timestamp: new Date().toISOString() },
  { timeoutMs: 10_000 },
);
const active = await quests.getActiveQuestChains(userId);

let refused;
try {
  await quests.sendEvent({ user_id: userId, event_type: 'registration', timestamp: 'yesterday' });
} catch (error) {
  if (!(error instanceof QuestChainApiError)) throw error;
  refused = { status: error.status, code: error.code };
}

// In Node.js there is no EventSource: the helper reads the stream with fetch.
const ready = await new Promise((resolve, reject) => {
  const live = openLiveUpdates(baseUrl, active.liveUpdates, {
    onReady: (data) => {
      live.close();
      resolve({ ...data, transport: live.transport });
    },
    onProgress: () => {},
    onError: reject,
  });
});

console.log(
  JSON.stringify({
    registered: user.platform_user_id,
    event: event.status,
    chains: active.quest_chains.map((entry) => entry.quest_chain.name),
    refused,
    ready,
  }),
);
