import { describe, expect, it } from 'vitest';
import { insertMessages } from '../shared/db/webhook-message-store.js';
import { uniqueSuffix } from '../shared/testing/database.js';
import { useTestData } from '../shared/testing/test-data.js';
import { runCli } from './run-cli.test-helper.js';

// `quest-chains webhooks list|create|delete|messages|replay`, the built CLI run as an operator runs it.

const { database, platform, advertiser } = useTestData('webhooks_cli');
const queuePrefix = `cli-${uniqueSuffix()}`;

const cli = (args: string[]) => runCli(['--json', ...args], { DATABASE_URL: database.url, QUEUE_PREFIX: queuePrefix });

const json = async (args: string[]) => {
  const run = await cli(args);
  expect(run.code, run.stderr).toBe(0);
  return JSON.parse(run.stdout);
};

describe('quest-chains webhooks', () => {
  it('creates (secret once), lists (no secret), shows messages, replays and deletes', async () => {
    const created = await json([
      'webhooks',
      'create',
      platform.id,
      'https://93.184.215.14/hooks',
      '--event-types',
      'task.completed,reward.claimed',
    ]);
    expect(created).toMatchObject({
      url: 'https://93.184.215.14/hooks',
      event_types: ['task.completed', 'reward.claimed'],
      status: 'enabled',
    });
    expect(created.secret).toMatch(/^whsec_/);
    const listed = await cli(['webhooks', 'list', platform.id]);
    expect(JSON.parse(listed.stdout).endpoints.map((e: { id: string }) => e.id)).toEqual([created.id]);
    expect(listed.stdout).not.toContain('whsec_');

    const [messageId] = await insertMessages(database.db, [
      { providerId: platform.id, type: 'reward.claimed', fact: 'reward.claimed/cli', data: {} },
    ]);
    const messages = await json(['webhooks', 'messages', platform.id, created.id, '--status', 'pending']);
    expect(messages).toEqual({
      messages: [expect.objectContaining({ id: messageId, type: 'reward.claimed', status: 'pending', attempts: [] })],
      has_more: false,
    });
    expect(await json(['webhooks', 'replay', platform.id, created.id, messageId!])).toEqual({ id: messageId, queued: true });
    expect(await json(['webhooks', 'delete', platform.id, created.id])).toEqual({ id: created.id, deleted: true });
    expect(await json(['webhooks', 'list', platform.id])).toEqual({ endpoints: [] });
  });

  it('refuses what the API refuses, naming the field, with the same codes', async () => {
    const refused = await cli(['webhooks', 'create', platform.id, 'https://10.0.0.1/hooks']);
    expect(refused.code).toBe(1);
    expect(JSON.parse(refused.stderr)).toMatchObject({ success: false, code: 'webhook_url_refused' });
    const advertiserClaims = await cli([
      'webhooks',
      'create',
      advertiser.id,
      'https://93.184.215.14/h',
      '--event-types',
      'reward.claimed',
    ]);
    expect(JSON.parse(advertiserClaims.stderr)).toMatchObject({ code: 'invalid_field' });
    const badStatus = await cli(['webhooks', 'messages', platform.id, platform.id, '--status', 'lost']);
    expect(badStatus.code).toBe(2);
    expect(JSON.parse(badStatus.stderr).error).toContain('status');
  });
});
