import type { Command } from 'commander';
import { CliError, parseId, type Runner } from './context.js';

export function accountCommands(program: Command, run: Runner): void {
  const account = program.command('account').description('manage accounts');

  account.command('create')
    .description('create an account')
    .requiredOption('--name <name>', 'account name')
    .option('--trunking', 'enable trunk access', false)
    .option('--trunk-capacity <n>', 'how many trunks the account may hold')
    .action(run((ctx, opts: { name: string; trunking: boolean; trunkCapacity?: string }) => {
      const a = ctx.store.accounts.create({
        name: opts.name,
        trunking: opts.trunking,
        trunkCapacity: opts.trunkCapacity === undefined ? ctx.config.accounts.defaultTrunkCapacity : parseId(opts.trunkCapacity, '--trunk-capacity'),
      });
      ctx.out({ id: a.id, name: a.name, trunking: a.trunking, trunk_capacity: a.trunkCapacity }, `created account ${a.id} (${a.name})`);
    }));

  account.command('update <id>')
    .description('change trunk access or capacity')
    .option('--trunking', 'enable trunk access')
    .option('--no-trunking', 'disable trunk access')
    .option('--trunk-capacity <n>', 'how many trunks the account may hold')
    .option('--name <name>', 'rename')
    .action(run((ctx, id: string, opts: { trunking?: boolean; trunkCapacity?: string; name?: string }) => {
      const changes = {
        ...(opts.trunking !== undefined ? { trunking: opts.trunking } : {}),
        ...(opts.trunkCapacity !== undefined ? { trunkCapacity: parseId(opts.trunkCapacity, '--trunk-capacity') } : {}),
        ...(opts.name !== undefined ? { name: opts.name } : {}),
      };
      const a = ctx.store.accounts.update(parseId(id, 'account id'), changes);
      if (!a) throw new CliError(`no account ${id}`);
      ctx.out({ id: a.id, name: a.name, trunking: a.trunking, trunk_capacity: a.trunkCapacity },
        `account ${a.id}: trunking ${a.trunking ? 'on' : 'off'}, capacity ${a.trunkCapacity}`);
    }));

  account.command('list')
    .description('list accounts')
    .action(run((ctx) => {
      const rows = ctx.store.accounts.list().map((a) => ({ id: a.id, name: a.name, trunking: a.trunking, trunk_capacity: a.trunkCapacity }));
      ctx.out(rows, rows.map((a) => `${a.id}\t${a.name}\ttrunking=${a.trunking ? 'on' : 'off'}\tcapacity=${a.trunk_capacity}`));
    }));
}
