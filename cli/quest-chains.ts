import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { createChainSchema, toCreateChainInput } from '../api/routes/admin/quest-chains/create-schema.js';
import {
  type ChainDefinitionResponse,
  chainIdParams,
  chainListQuery,
  toChainDefinitionResponse,
  updateChainSchema,
} from '../api/routes/admin/quest-chains/schema.js';
import { everyItem } from '../core/page.js';
import { listChains, setChainStatus } from '../core/quest-chains/chains.js';
import { createChain } from '../core/quest-chains/create-chain.js';
import { registerChainAnalysisCommands } from './chain-analysis.js';
import { registerChainStatsCommand } from './chain-stats.js';
import { CliInputError, parseInput, runCommand } from './context.js';

const summary = (view: ChainDefinitionResponse) => {
  const chain = view.quest_chain;
  return `${chain.id}  ${chain.status.padEnd(7)}  ${chain.start_date} .. ${chain.end_date}  ${view.tasks.length} task(s)  ${chain.name}`;
};

// The API caches active chains per platform for CHAIN_CACHE_TTL_MS (2 s by default);
// changes made here reach GET /v1/quest-chains/active within that time.

/** `label` names the input in messages: `--file <path>`, or the path of a positional argument. */
async function readChainFile(path: string, label = `--file ${path}`): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new CliInputError(
      `${label}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message}`,
    );
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new CliInputError(`${label}: not valid JSON (${(error as Error).message})`);
  }
}

export function registerQuestChainCommands(program: Command, json: () => boolean) {
  // `chains` is the short name the guides use.
  const chains = program.command('quest-chains').alias('chains').description('quest chains with their tasks and rewards');

  chains
    .command('create')
    .description('create a chain from a JSON file shaped like the POST /admin/v1/quest-chains body')
    .requiredOption('--file <path>', 'chain definition (JSON)')
    .action((options: { file: string }) =>
      runCommand(json(), async ({ db, changes, out }) => {
        const body = parseInput(createChainSchema, await readChainFile(options.file), 'file');
        const view = toChainDefinitionResponse(await createChain({ db, changes }, toCreateChainInput(body)));
        out.result(view, () => [`created ${summary(view)}`]);
      }),
    );

  chains
    .command('list')
    .description('list chains, newest first')
    .option('--platform <id>', "only this platform's chains")
    .action((options: { platform?: string }) =>
      runCommand(json(), async ({ db, out }) => {
        const query = parseInput(chainListQuery, { platform_id: options.platform }, 'platform');
        const all = await everyItem(
          (page) => listChains({ db }, { platformId: query.platform_id, page }),
          (definition) => definition.chain.id,
        );
        const views = all.map(toChainDefinitionResponse);
        out.result(views, () => (views.length === 0 ? ['no quest chains'] : views.map(summary)));
      }),
    );

  chains
    .command('set-status <id> <status>')
    .description('set the status: draft, active, paused or ended')
    .action((id: string, status: string) =>
      runCommand(json(), async ({ db, changes, out }) => {
        const params = parseInput(chainIdParams, { id });
        const body = parseInput(updateChainSchema, { status });
        const view = toChainDefinitionResponse(
          await setChainStatus({ db, changes }, { chainId: params.id, status: body.status }),
        );
        out.result(view, () => [`${view.quest_chain.name} (${view.quest_chain.id}) is now ${view.quest_chain.status}`]);
      }),
    );

  registerChainAnalysisCommands(chains, json, readChainFile);
  registerChainStatsCommand(chains, json);
}
