import type { Command } from 'commander';
import { readFileSync } from 'node:fs';
import { CliError, parseId, type CliContext, type Runner } from './context.js';
import { NumberError, NumberService } from '../numbers/service.js';
import type { PhoneNumber } from '../numbers/repo.js';

interface SetFlags { webhookUrl?: string; fallbackUrl?: string; format?: string; hangupUrl?: string; clientRef?: string; active?: boolean; settings?: string }

const view = (n: PhoneNumber) => ({ number: n.e164, account: n.accountId, claimed_at: n.claimedAt, settings: n.settings });

/** Flags for the common settings, plus --settings for the nested ones as JSON (inline or @file). */
function patchFrom(flags: SetFlags): Record<string, unknown> {
  let patch: Record<string, unknown> = {};
  if (flags.settings !== undefined) {
    const text = flags.settings.startsWith('@') ? readFileSync(flags.settings.slice(1), 'utf8') : flags.settings;
    try {
      patch = JSON.parse(text) as Record<string, unknown>;
    } catch {
      throw new CliError('--settings must be a JSON object (or @file holding one)');
    }
  }
  if (flags.webhookUrl !== undefined) patch.webhook_url = flags.webhookUrl;
  if (flags.fallbackUrl !== undefined) patch.fallback_url = flags.fallbackUrl;
  if (flags.format !== undefined) patch.response_format = flags.format;
  if (flags.hangupUrl !== undefined) patch.hangup_url = flags.hangupUrl;
  if (flags.clientRef !== undefined) patch.client_ref = flags.clientRef;
  if (flags.active !== undefined) patch.active = flags.active;
  return patch;
}

function withNumbers<A extends unknown[]>(run: Runner, fn: (ctx: CliContext, numbers: NumberService, ...args: A) => void | Promise<void>) {
  return run(async (ctx, ...args: A) => {
    try {
      await fn(ctx, new NumberService(ctx.store.numbers, { allowLocalTargets: ctx.config.devAllowLocalTargets }), ...args);
    } catch (err) {
      if (err instanceof NumberError) {
        const details = Object.entries(err.errors).map(([f, m]) => `${f}: ${m.join(' ')}`);
        throw new CliError([err.message, ...details].join('\n  '));
      }
      throw err;
    }
  });
}

function settingFlags(cmd: Command): Command {
  return cmd
    .option('--webhook-url <url>', 'webhook receiving inbound calls')
    .option('--fallback-url <url>', 'asked when the webhook (or an action URL) is unavailable')
    .option('--format <xml|json>', 'markup format the webhook answers in')
    .option('--hangup-url <url>', 'status callback target (final status of every call)')
    .option('--client-ref <ref>', 'returned as ClientRef in status callbacks (64 chars)')
    .option('--settings <json|@file>', 'any settings as JSON: schedule, after_hours, ivr, recording, ...');
}

export function numberCommands(program: Command, run: Runner): void {
  const number = program.command('number').description('the phone number pool and number settings');

  settingFlags(number.command('add <e164>').description('add a DID to the pool (or straight to an account)'))
    .option('--account <id>', 'claim it for this account')
    .action(withNumbers(run, async (ctx, numbers, e164: string, flags: SetFlags & { account?: string }) => {
      const accountId = flags.account === undefined ? null : parseId(flags.account, '--account');
      if (accountId !== null && !(await ctx.store.accounts.get(accountId))) throw new CliError(`no account ${accountId}`);
      const n = await numbers.add(e164, accountId, patchFrom(flags));
      ctx.out(view(n), `added ${n.e164}${accountId === null ? ' to the pool' : ` for account ${accountId}`}`);
    }));

  number.command('list').description('list numbers')
    .option('--account <id>', "only this account's numbers")
    .option('--pool', 'only unclaimed numbers')
    .action(run(async (ctx, flags: { account?: string; pool?: boolean }) => {
      const rows = flags.pool ? await ctx.store.numbers.listUnclaimed()
        : flags.account !== undefined ? await ctx.store.numbers.listForAccount(parseId(flags.account, '--account'))
          : await ctx.store.numbers.listAll();
      ctx.out(rows.map(view), rows.map((n) => `${n.e164}\t${n.accountId === null ? 'pool' : `account ${n.accountId}`}\t${n.settings.active ? 'active' : 'inactive'}\t${n.settings.webhook_url ?? '-'}`));
    }));

  number.command('show <e164>').action(withNumbers(run, async (ctx, numbers, e164: string) => {
    const n = await numbers.find(e164);
    ctx.out(view(n), JSON.stringify(view(n), null, 2));
  }));

  number.command('assign <e164>').description('give a pool number to an account')
    .requiredOption('--account <id>', 'account id')
    .action(withNumbers(run, async (ctx, numbers, e164: string, flags: { account: string }) => {
      const accountId = parseId(flags.account, '--account');
      if (!(await ctx.store.accounts.get(accountId))) throw new CliError(`no account ${accountId}`);
      const n = await numbers.claim(e164, accountId);
      ctx.out(view(n), `${n.e164} assigned to account ${accountId}`);
    }));

  number.command('release <e164>').description('return a number to the pool (its settings are reset; callbacks and campaigns calling from it stop)')
    .action(withNumbers(run, async (ctx, numbers, e164: string) => {
      const held = await numbers.find(e164);
      const stops = held.accountId === null ? { callbacks: 0, campaigns: [] } : {
        callbacks: await ctx.store.scheduledCallbacks.countOpenFrom(held.accountId, held.e164),
        campaigns: await ctx.store.leadCampaigns.namesCallingFrom(held.accountId, held.e164),
      };
      const n = await numbers.release(e164);
      const lines = [`${n.e164} released to the pool`];
      if (stops.callbacks > 0) lines.push(`stops ${stops.callbacks} scheduled callback(s) of account ${held.accountId}: each fails when due, nobody is rung`);
      if (stops.campaigns.length > 0) lines.push(`stops speed to lead of campaign(s) ${stops.campaigns.join(', ')}: their new leads are refused (409) until they get another caller_id`);
      ctx.out({ ...view(n), stops: { scheduled_callbacks: stops.callbacks, campaigns: stops.campaigns } }, lines);
    }));

  settingFlags(number.command('set <e164>').description('change number settings'))
    .option('--active', 'answer calls')
    .option('--inactive', 'hang up inbound calls and refuse outbound ones')
    .action(withNumbers(run, async (ctx, numbers, e164: string, flags: SetFlags & { inactive?: boolean }) => {
      if (flags.inactive) flags.active = false;
      const n = await numbers.update(await numbers.find(e164), patchFrom(flags));
      ctx.out(view(n), `${n.e164} updated`);
    }));
}
