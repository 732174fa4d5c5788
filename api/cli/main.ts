import { Command } from 'commander';
import { registerCredentialCommands } from './credentials.js';
import { registerProviderCommands } from './providers.js';
import { registerQuestChainCommands } from './quest-chains.js';
import { registerSeedDemoCommand } from './seed-demo.js';

/**
 * Operator CLI: `npm run cli -- <command>`. It calls the same use-cases as
 * the admin API, directly against DATABASE_URL (a migrated database), so it
 * works before any API process runs and needs no ADMIN_TOKEN.
 */
const program = new Command()
  .name('npm run cli --')
  .description('Quest-chain rewards operator commands (reads DATABASE_URL; expects a migrated database)')
  .option('--json', 'print results as JSON (errors stay on stderr)')
  .showHelpAfterError('(add --help for usage)');

const json = () => Boolean(program.opts<{ json?: boolean }>().json);

registerProviderCommands(program, json);
registerCredentialCommands(program, json);
registerQuestChainCommands(program, json);
registerSeedDemoCommand(program, json);

await program.parseAsync(process.argv);
