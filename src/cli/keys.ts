import { keyNameProblem } from '../store/api-keys.js';
import { trimName } from '../names/index.js';
import type { Command } from 'commander';
import { CliError, parseId, type Runner } from './context.js';
import type { ApiKeySummary } from '../store/api-keys.js';

const view = (k: ApiKeySummary) => ({
  id: k.id, account: k.accountId, name: k.name, prefix: k.prefix, last4: k.last4,
  created_at: k.createdAt, last_used_at: k.lastUsedAt, revoked_at: k.revokedAt,
});

export function keyCommands(program: Command, run: Runner): void {
  const key = program.command('key').description('manage API keys (shown once, stored hashed)');

  key.command('create')
    .requiredOption('--account <id>', 'account id')
    .option('--name <name>', 'what will use the key, e.g. "billing server" (up to 64 characters)')
    .action(run(async (ctx, opts: { account: string; name?: string }) => {
      const accountId = parseId(opts.account, '--account');
      if (!(await ctx.store.accounts.get(accountId))) throw new CliError(`no account ${accountId}`);
      const problem = opts.name === undefined ? null : keyNameProblem(opts.name);
      if (problem) throw new CliError(`--name: ${problem}`);
      const { key: clear, summary } = await ctx.store.apiKeys.create(accountId, opts.name === undefined ? null : trimName(opts.name));
      ctx.out({ key: clear, id: summary.id }, [clear, '(shown once: store it now; only its hash is kept)']);
    }));

  key.command('list')
    .requiredOption('--account <id>', 'account id')
    .action(run(async (ctx, opts: { account: string }) => {
      const rows = (await ctx.store.apiKeys.listForAccount(parseId(opts.account, '--account'))).map(view);
      ctx.out(rows, rows.map((k) => `${k.id}\t${k.name ?? '(unnamed)'}\t${k.prefix}…${k.last4}\tcreated ${k.created_at}${k.revoked_at ? '\trevoked' : ''}`));
    }));

  key.command('revoke <id>')
    .description('revoke a key by the id shown in `key list`')
    .action(run(async (ctx, keyId: string) => {
      const id = parseId(keyId, 'key id');
      if (!(await ctx.store.apiKeys.revoke(id))) throw new CliError(`no active key ${id}`);
      ctx.out({ id, revoked: true }, `revoked key ${id}`);
    }));
}
