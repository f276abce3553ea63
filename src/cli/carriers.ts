import type { Command } from 'commander';
import { hostnameProblem } from '../net/hostname.js';
import { CliError, type Runner } from './context.js';
import { CarrierNameTakenError, type Carrier } from '../store/carriers.js';

/** HOST[:PORT] or [v6]:PORT: the address carriers send from and receive our calls on. */
export function parseAddress(value: string): { host: string; port: number | null } {
  const m = /^(\[[^\]]+\])(?::(\d+))?$/.exec(value) ?? /^([^:]+)(?::(\d+))?$/.exec(value);
  const written = m?.[1];
  const port = m?.[2] === undefined ? null : Number(m[2]);
  if (!written) throw new CliError(`--address must be HOST[:PORT], got "${value}"`);
  // Carriers are the operator's own peers: private addresses are fine, but a host name follows the one rule
  // (which also holds brackets to IPv6 addresses, so it judges the host as written).
  const problem = hostnameProblem(written, 'any');
  if (problem) throw new CliError(`--address host "${written}" ${problem}`);
  if (port !== null && (port < 1 || port > 65535)) throw new CliError(`--address port must be 1-65535, got ${port}`);
  return { host: written.replace(/^\[(.*)\]$/, '$1'), port };
}

const view = (c: Carrier) => ({ name: c.name, host: c.host, port: c.port, prefix: c.prefix, created_at: c.createdAt });
const line = (c: Carrier) => `${c.name}\t${c.host}${c.port === null ? '' : `:${c.port}`}\t${c.prefix ?? '*'}`;

export function carrierCommands(program: Command, run: Runner): void {
  const carrier = program.command('carrier').description('carrier gateways: trusted sources of DID calls and the route for calls to numbers');

  carrier.command('add').description('add a carrier gateway')
    .requiredOption('--name <name>', 'a unique name, shown as the source of its calls')
    .requiredOption('--address <host[:port]>', 'where it sends from and where calls to numbers go (port 5060 when omitted)')
    .option('--prefix <e164-prefix>', 'route only numbers starting with this (e.g. +44) through it')
    .action(run(async (ctx, flags: { name: string; address: string; prefix?: string }) => {
      if (!/^[\w.-]{1,64}$/.test(flags.name)) throw new CliError('--name must be 1-64 letters, digits, dots, dashes or underscores');
      if (flags.prefix !== undefined && !/^\+?\d{1,15}$/.test(flags.prefix)) throw new CliError('--prefix must be digits, optionally starting with +');
      try {
        const c = await ctx.store.carriers.add({ name: flags.name, ...parseAddress(flags.address), prefix: flags.prefix ?? null });
        ctx.out({ id: c.id, ...view(c) }, `carrier ${c.name} added`);
      } catch (err) {
        if (err instanceof CarrierNameTakenError) throw new CliError(err.message);
        throw err;
      }
    }));

  carrier.command('list').description('list carrier gateways')
    .action(run(async (ctx) => {
      const all = await ctx.store.carriers.list();
      ctx.out(all.map(view), all.length ? all.map(line) : 'no carriers');
    }));

  carrier.command('remove <name>').description('remove a carrier gateway (its calls are refused from now on)')
    .action(run(async (ctx, name: string) => {
      if (!(await ctx.store.carriers.remove(name))) throw new CliError(`no carrier named "${name}"`, 1);
      ctx.out({ removed: name }, `carrier ${name} removed`);
    }));
}
