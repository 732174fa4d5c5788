import type { Command } from 'commander';
import {
  credentialKeyParams,
  credentialModeSchema,
  toCreatedCredentialResponse,
  toCredentialResponse,
} from '../api/routes/admin/credentials/schema.js';
import { providerIdParams } from '../api/routes/admin/providers/schema.js';
import { createCredential, listCredentials, updateCredential } from '../core/admin/credentials.js';
import { everyItem } from '../core/page.js';
import { commaList, parseInput, runCommand } from './context.js';

type CredentialView = ReturnType<typeof toCredentialResponse>;
const line = (c: CredentialView) =>
  `${c.key}  ${c.mode}  ${c.status.padEnd(8)}  ${c.permissions.join(',') || '(no permissions)'}`;

export function registerCredentialCommands(program: Command, json: () => boolean) {
  const credentials = program.command('credentials').description('API keys and secrets of a provider');

  credentials
    .command('create <providerId>')
    .description('create a credential; its secret is printed once and never again')
    .option(
      '--permissions <list>',
      "comma-separated, e.g. events:write,users:register (default: every permission of the provider's type)",
    )
    .option('--mode <mode>', 'live or test (docs/test-mode.md)', 'live')
    .action((providerId: string, options: { permissions?: string; mode: string }) =>
      runCommand(json(), async ({ db, out }) => {
        const { id } = parseInput(providerIdParams, { id: providerId }, 'providerId');
        const mode = parseInput(credentialModeSchema(), options.mode, 'mode');
        const permissions = options.permissions === undefined ? undefined : commaList(options.permissions);
        const created = toCreatedCredentialResponse(await createCredential({ db }, { providerId: id, permissions, mode }));
        out.warn('the secret is shown only now; store it in your secret manager. It cannot be read again, only replaced.');
        out.result(created, () => [
          `key:         ${created.key}`,
          `secret:      ${created.secret}`,
          `mode:        ${created.mode}`,
          `permissions: ${created.permissions.join(',')}`,
        ]);
      }),
    );

  credentials
    .command('list <providerId>')
    .description("list a provider's credentials (never their secrets)")
    .action((providerId: string) =>
      runCommand(json(), async ({ db, out }) => {
        const { id } = parseInput(providerIdParams, { id: providerId }, 'providerId');
        const all = await everyItem(
          (page) => listCredentials({ db }, { providerId: id, page }),
          (credential) => credential.key,
        );
        const views = all.map(toCredentialResponse);
        out.result(views, () => (views.length === 0 ? ['no credentials'] : views.map(line)));
      }),
    );

  for (const [name, status] of [
    ['activate', 'active'],
    ['deactivate', 'inactive'],
  ] as const) {
    credentials
      .command(`${name} <key>`)
      .description(`${name} a credential (applies within 5 seconds)`)
      .action((key: string) =>
        runCommand(json(), async ({ db, out }) => {
          const params = parseInput(credentialKeyParams, { key });
          const view = toCredentialResponse(await updateCredential({ db }, { key: params.key, status }));
          out.result(view, () => [`${view.key} is now ${view.status}`]);
        }),
      );
  }

  credentials
    .command('set-permissions <key> <list>')
    .description('replace the permissions of a credential ("" for none)')
    .action((key: string, list: string) =>
      runCommand(json(), async ({ db, out }) => {
        const params = parseInput(credentialKeyParams, { key });
        const view = toCredentialResponse(await updateCredential({ db }, { key: params.key, permissions: commaList(list) }));
        out.result(view, () => [line(view)]);
      }),
    );
}
