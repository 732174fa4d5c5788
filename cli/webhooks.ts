import type { Command } from 'commander';
import { toPageRequest } from '../api/http/pagination.js';
import { providerIdParams } from '../api/routes/admin/providers/schema.js';
import {
  createEndpointSchema,
  endpointParams,
  messageParams,
  messagesQuery,
  toCreatedEndpointResponse,
  toEndpointsResponse,
  toMessagesResponse,
} from '../api/routes/webhook-endpoints/schema.js';
import { createEndpoint, deleteEndpoint, listEndpoints } from '../core/webhooks/endpoints.js';
import { listMessages, replayMessage } from '../core/webhooks/messages.js';
import { findProvider } from '../shared/db/provider-store.js';
import { WEBHOOK_MESSAGE_STATUSES } from '../shared/db/schema/index.js';
import { notFound } from '../shared/errors.js';
import { type CliContext, commaList, parseInput, runCommand, withQueues } from './context.js';

/**
 * `quest-chains webhooks …`: a provider's webhook endpoints, as its own
 * credential manages them over /v1/webhook-endpoints (the same use-cases and
 * wire shapes), for operators helping an integrator.
 */
async function providerOf(db: CliContext['db'], providerId: string) {
  const { id } = parseInput(providerIdParams, { id: providerId }, 'providerId');
  const provider = await findProvider(db, id);
  if (!provider) throw notFound('No provider with this id', 'providerId');
  return provider;
}

export function registerWebhookCommands(program: Command, json: () => boolean) {
  const webhooks = program.command('webhooks').description("a provider's webhook endpoints, their delivery log and replays");

  webhooks
    .command('list <providerId>')
    .description("list a provider's endpoints (never their secrets)")
    .action((providerId: string) =>
      runCommand(json(), async ({ db, out }) => {
        const provider = await providerOf(db, providerId);
        const view = toEndpointsResponse(await listEndpoints({ db }, { providerId: provider.id }));
        out.result(view, () =>
          view.endpoints.length === 0
            ? ['no endpoints']
            : view.endpoints.map((e) => `${e.id}  ${e.url}  ${e.event_types.join(',')}`),
        );
      }),
    );

  webhooks
    .command('create <providerId> <url>')
    .description('create an endpoint; its signing secret is printed once and never again')
    .option(
      '--event-types <list>',
      'comma-separated, e.g. task.completed,chain.completed (default: every type the provider may receive)',
    )
    .action((providerId: string, url: string, options: { eventTypes?: string }) =>
      runCommand(json(), async ({ db, config, out }) => {
        const provider = await providerOf(db, providerId);
        const body = parseInput(createEndpointSchema, {
          url,
          ...(options.eventTypes === undefined ? {} : { event_types: commaList(options.eventTypes) }),
        });
        const created = toCreatedEndpointResponse(
          await createEndpoint(
            { db, urlPolicy: { allowHttp: config.WEBHOOK_ALLOW_HTTP, allowPrivate: config.WEBHOOK_ALLOW_PRIVATE } },
            { providerId: provider.id, providerType: provider.type, url: body.url, eventTypes: body.event_types },
          ),
        );
        out.warn('the secret is shown only now; hand it to the integrator over a secure channel.');
        out.result(created, () => [
          `id:          ${created.id}`,
          `secret:      ${created.secret}`,
          `event types: ${created.event_types.join(',')}`,
        ]);
      }),
    );

  webhooks
    .command('delete <providerId> <endpointId>')
    .description('delete an endpoint: nothing more is sent to it')
    .action((providerId: string, endpointId: string) =>
      runCommand(json(), async ({ db, out }) => {
        const provider = await providerOf(db, providerId);
        const { id } = parseInput(endpointParams, { id: endpointId }, 'endpointId');
        await deleteEndpoint({ db }, { providerId: provider.id, endpointId: id });
        out.result({ id, deleted: true }, () => [`${id} deleted`]);
      }),
    );

  webhooks
    .command('messages <providerId> <endpointId>')
    .description("an endpoint's messages, newest first, with every attempt")
    .option('--status <status>', WEBHOOK_MESSAGE_STATUSES.join('|'))
    .option('--limit <n>', 'how many (1-200)', '50')
    .option('--starting-after <messageId>', 'continue after this message')
    .action((providerId: string, endpointId: string, options: { status?: string; limit: string; startingAfter?: string }) =>
      runCommand(json(), async ({ db, out }) => {
        const provider = await providerOf(db, providerId);
        const { id } = parseInput(endpointParams, { id: endpointId }, 'endpointId');
        const query = parseInput(messagesQuery, {
          status: options.status,
          limit: options.limit,
          starting_after: options.startingAfter,
        });
        const view = toMessagesResponse(
          await listMessages(
            { db },
            { providerId: provider.id, endpointId: id, status: query.status, page: toPageRequest(query) },
          ),
        );
        out.result(view, () => [
          ...view.messages.map(
            (m) =>
              `${m.id}  ${m.type.padEnd(15)}  ${m.status.padEnd(9)}  ${m.attempts.map((a) => a.status_code ?? a.error).join(' ') || 'no attempt yet'}`,
          ),
          ...(view.messages.length === 0 ? ['no messages'] : []),
          ...(view.has_more ? [`more: --starting-after ${view.messages.at(-1)!.id}`] : []),
        ]);
      }),
    );

  webhooks
    .command('replay <providerId> <endpointId> <messageId>')
    .description('send a message again now, with the same id, whatever its status')
    .action((providerId: string, endpointId: string, messageId: string) =>
      runCommand(json(), async ({ db, config, out }) => {
        const provider = await providerOf(db, providerId);
        const params = parseInput(messageParams, { id: endpointId, message_id: messageId });
        // The queue exactly as the API and workers address it (one Redis or a cluster: shared/queue/shards.ts).
        await withQueues(config, async ({ redis, webhooks: producer }) => {
          // The first command right after connecting: wait for the connection instead of failing fast.
          await redis.ping().catch(() => undefined);
          const { queued } = await replayMessage(
            { db, webhooks: producer },
            { providerId: provider.id, endpointId: params.id, messageId: params.message_id },
          );
          if (!queued) throw new Error('the delivery queue (REDIS_URL) is unreachable; try again');
          out.result({ id: params.message_id, queued: true }, () => [`${params.message_id} queued for delivery`]);
        });
      }),
    );
}
