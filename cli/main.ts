#!/usr/bin/env node
import { Command, CommanderError } from 'commander';
import { USAGE_EXIT_CODE, writeJsonFailure } from './context.js';
import { registerCredentialCommands } from './credentials.js';
import { registerEventCommands } from './events.js';
import { registerLeaderboardCommands } from './leaderboards.js';
import { registerPointsCommand } from './points.js';
import { registerProviderCommands } from './providers.js';
import { registerQuestChainCommands } from './quest-chains.js';
import { registerSeedDemoCommand } from './seed-demo.js';
import { registerWebhookCommands } from './webhooks.js';
import { registerWorkerCommands } from './workers.js';

/**
 * Operator CLI: the `quest-chains` bin (dist/cli/main.js, prebuilt: no
 * compile per call), or `npm run cli --silent -- <command>` from a checkout.
 * It calls the same use-cases as the admin API, directly against
 * DATABASE_URL (a migrated database), so it works before any API process
 * runs and needs no ADMIN_TOKEN. Exit codes: 0 done, 1 failed, 2 usage error
 * (unknown command or option, missing argument, input the schemas refuse).
 * Under --json, stdout holds only the result and a failure is one JSON object
 * on stderr (`{"success":false,"error":…,"code":…}`, the API's envelope).
 */
// Known before commander parses anything, so even a parse error can answer in JSON.
const json = process.argv.includes('--json');

const program = new Command()
  .name('quest-chains')
  .description('Quest-chain rewards operator commands (reads DATABASE_URL and .env; expects a migrated database)')
  .option('--json', 'print results as JSON; failures as one JSON object on stderr')
  // Set before the commands are added, so every subcommand inherits them.
  .exitOverride()
  .configureOutput({ outputError: (text, write) => (json ? undefined : write(text)) })
  // Its hint is plain text on stderr: not under --json, where stderr is one JSON object.
  .showHelpAfterError(json ? false : '(add --help for usage)');

const wantsJson = () => json;

registerProviderCommands(program, wantsJson);
registerCredentialCommands(program, wantsJson);
registerQuestChainCommands(program, wantsJson);
registerLeaderboardCommands(program, wantsJson);
registerEventCommands(program, wantsJson);
registerWebhookCommands(program, wantsJson);
registerPointsCommand(program, wantsJson);
registerWorkerCommands(program, wantsJson);
registerSeedDemoCommand(program, wantsJson);

try {
  await program.parseAsync(process.argv);
} catch (error) {
  if (!(error instanceof CommanderError)) throw error;
  // --help and --version end here too, with exit code 0; everything else commander refuses is usage.
  if (error.exitCode !== 0) {
    if (json) writeJsonFailure(error.message.replace(/^error: /, ''), 'usage');
    process.exitCode = USAGE_EXIT_CODE;
  }
}
