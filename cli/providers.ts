import type { Command } from 'commander';
import { createProviderSchema, providerIdParams, toProviderResponse } from '../api/routes/admin/providers/schema.js';
import { createProvider, listProviders, updateProvider } from '../core/admin/providers.js';
import { everyItem } from '../core/page.js';
import { parseInput, runCommand } from './context.js';

type ProviderView = ReturnType<typeof toProviderResponse>;
const line = (p: ProviderView) => `${p.id}  ${p.type.padEnd(10)}  ${p.status.padEnd(8)}  ${p.name}`;

export function registerProviderCommands(program: Command, json: () => boolean) {
  const providers = program.command('providers').description('platforms and advertisers');

  providers
    .command('create')
    .description('create a platform or an advertiser')
    .requiredOption('--type <type>', 'platform or advertiser')
    .requiredOption('--name <name>', 'display name')
    .action((options: { type: string; name: string }) =>
      runCommand(json(), async ({ db, out }) => {
        const input = parseInput(createProviderSchema, options);
        const view = toProviderResponse(await createProvider({ db }, input));
        out.result(view, () => [`created ${view.type} "${view.name}": ${view.id}`]);
      }),
    );

  providers
    .command('list')
    .description('list every provider, oldest first')
    .action(() =>
      runCommand(json(), async ({ db, out }) => {
        const views = (
          await everyItem(
            (page) => listProviders({ db }, page),
            (provider) => provider.id,
          )
        ).map(toProviderResponse);
        out.result(views, () => (views.length === 0 ? ['no providers yet'] : views.map(line)));
      }),
    );

  for (const [name, status] of [
    ['activate', 'active'],
    ['deactivate', 'inactive'],
  ] as const) {
    providers
      .command(`${name} <id>`)
      .description(`${name} a provider (its credentials follow within 5 seconds)`)
      .action((id: string) =>
        runCommand(json(), async ({ db, out }) => {
          const params = parseInput(providerIdParams, { id });
          const view = toProviderResponse(await updateProvider({ db }, { providerId: params.id, status }));
          out.result(view, () => [`${view.name} (${view.id}) is now ${view.status}`]);
        }),
      );
  }
}
