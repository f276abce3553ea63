import type { Command } from 'commander';
import { CliError, parseId, type CliContext, type Runner } from './context.js';
import { OrgSettingsError, type OrgSettings } from '../org/settings.js';

const view = (s: OrgSettings) => ({
  account: s.accountId, webhook_hosts: s.webhookHosts, injection_ips: s.injectionIps,
  injection_token_set: s.injectionTokenSet, injection_token_rotated_at: s.injectionTokenRotatedAt,
});

function human(s: OrgSettings): string[] {
  return [
    `account ${s.accountId}`,
    `webhook hosts:    ${s.webhookHosts.join(', ') || '(none: webhook subscriptions cannot be created)'}`,
    `injection IPs:    ${s.injectionIps.join(', ') || '(none: lead injection refused from everywhere)'}`,
    `injection token:  ${s.injectionTokenSet ? `set ${s.injectionTokenRotatedAt}` : '(none: run rotate-injection-token)'}`,
  ];
}

async function accountOf(ctx: CliContext, value: string): Promise<number> {
  const id = parseId(value, '--account');
  if (!(await ctx.store.accounts.get(id))) throw new CliError(`no account ${id}`);
  return id;
}

/** Settings errors are the operator's input errors: a message and exit 1, never a stack trace. */
async function settingsChange(ctx: CliContext, change: () => Promise<OrgSettings>): Promise<void> {
  try {
    const s = await change();
    ctx.out(view(s), human(s));
  } catch (err) {
    if (err instanceof OrgSettingsError) throw new CliError(err.message);
    throw err;
  }
}

export function orgCommands(program: Command, run: Runner): void {
  const org = program.command('org').description('organisation settings of an account: webhook host allow-list, lead injection');
  org.command('show').requiredOption('--account <id>', 'account id')
    .action(run((ctx, opts: { account: string }) => settingsChange(ctx, async () => ctx.store.orgSettings.get(await accountOf(ctx, opts.account)))));

  const listCommand = (name: string, arg: string, description: string, apply: (ctx: CliContext, account: number, value: string) => Promise<OrgSettings>) =>
    org.command(`${name} <${arg}>`).description(description).requiredOption('--account <id>', 'account id')
      .action(run((ctx, value: string, opts: { account: string }) => settingsChange(ctx, async () => apply(ctx, await accountOf(ctx, opts.account), value))));

  listCommand('allow-host', 'host', 'allow webhook targets on HOST and its subdomains', (ctx, a, v) =>
    ctx.store.orgSettings.allowHost(a, v, ctx.config.devAllowLocalTargets ? 'public-or-loopback' : 'public'));
  listCommand('remove-host', 'host', 'remove HOST from the webhook allow-list', (ctx, a, v) => ctx.store.orgSettings.removeHost(a, v));
  listCommand('allow-ip', 'cidr', 'allow lead injection from an IP address or CIDR block', (ctx, a, v) => ctx.store.orgSettings.allowIp(a, v));
  listCommand('remove-ip', 'cidr', 'remove an IP/CIDR from the lead-injection allow-list', (ctx, a, v) => ctx.store.orgSettings.removeIp(a, v));

  org.command('rotate-injection-token').description('issue a new lead-injection token (shown once; the old one stops working)')
    .requiredOption('--account <id>', 'account id')
    .action(run(async (ctx, opts: { account: string }) => {
      const token = await ctx.store.orgSettings.rotateInjectionToken(await accountOf(ctx, opts.account));
      ctx.out({ token }, [token, '(shown once: store it now; only its hash is kept)']);
    }));
}
