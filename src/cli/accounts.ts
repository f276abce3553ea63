import type { Command } from 'commander';
import { CliError, parseId, type Runner } from './context.js';
import type { Account } from '../store/accounts.js';
import { NAME_LIMITS, nameProblem, trimName } from '../names/index.js';

const view = (a: Account) => ({
  id: a.id, name: a.name, trunking: a.trunking, trunk_capacity: a.trunkCapacity, cps: a.cpsCap, recording_controls: a.recordingControls,
});

/** The account's name as stored: the one name rule (src/names); the dashboard and the operator's lists show it. */
function accountName(value: string): string {
  const problem = nameProblem(value, NAME_LIMITS.account);
  if (problem) throw new CliError(`--name ${problem}`);
  return trimName(value);
}

export function accountCommands(program: Command, run: Runner): void {
  const account = program.command('account').description('manage accounts');

  account.command('create')
    .description('create an account')
    .requiredOption('--name <name>', 'account name')
    .option('--trunking', 'enable trunk access', false)
    .option('--trunk-capacity <n>', 'how many trunks the account may hold')
    .action(run(async (ctx, opts: { name: string; trunking: boolean; trunkCapacity?: string }) => {
      const a = await ctx.store.accounts.create({
        name: accountName(opts.name),
        trunking: opts.trunking,
        trunkCapacity: opts.trunkCapacity === undefined ? ctx.config.accounts.defaultTrunkCapacity : parseId(opts.trunkCapacity, '--trunk-capacity'),
      });
      ctx.out(view(a), `created account ${a.id} (${a.name})`);
    }));

  account.command('update <id>')
    .description('change trunk access or capacity')
    .option('--trunking', 'enable trunk access')
    .option('--no-trunking', 'disable trunk access')
    .option('--trunk-capacity <n>', 'how many trunks the account may hold')
    .option('--name <name>', 'rename')
    .option('--cps <n>', 'outbound calls per second the account may place')
    .option('--recording-controls', 'allow recording control on live calls (default)')
    .option('--no-recording-controls', 'refuse recording control requests with 503')
    .action(run(async (ctx, id: string, opts: { trunking?: boolean; trunkCapacity?: string; name?: string; cps?: string; recordingControls?: boolean }) => {
      const changes = {
        ...(opts.cps !== undefined ? { cpsCap: parseId(opts.cps, '--cps') } : {}),
        ...(opts.recordingControls !== undefined ? { recordingControls: opts.recordingControls } : {}),
        ...(opts.trunking !== undefined ? { trunking: opts.trunking } : {}),
        ...(opts.trunkCapacity !== undefined ? { trunkCapacity: parseId(opts.trunkCapacity, '--trunk-capacity') } : {}),
        ...(opts.name !== undefined ? { name: accountName(opts.name) } : {}),
      };
      const a = await ctx.store.accounts.update(parseId(id, 'account id'), changes);
      if (!a) throw new CliError(`no account ${id}`);
      ctx.out(view(a),
        `account ${a.id}: trunking ${a.trunking ? 'on' : 'off'}, capacity ${a.trunkCapacity}, ${a.cpsCap} calls/s, recording controls ${a.recordingControls ? 'on' : 'off'}`);
    }));

  account.command('list')
    .description('list accounts')
    .action(run(async (ctx) => {
      const rows = (await ctx.store.accounts.list()).map(view);
      ctx.out(rows, rows.map((a) => `${a.id}\t${a.name}\ttrunking=${a.trunking ? 'on' : 'off'}\tcapacity=${a.trunk_capacity}`));
    }));
}
