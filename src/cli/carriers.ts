import type { Command } from 'commander';
import { nameProblem } from '../names/index.js';
import { CliError, type Runner } from './context.js';
import { CarrierNameTakenError, hostAndPort, type Carrier, type CarrierSettings } from '../store/carriers.js';
import { E164_RULES } from '../net/number-rules.js';
import { carrierSettings, type CarrierFlags } from './carrier-options.js';
import { operatorRequest } from './operator-client.js';

/** GET /operator/carriers as it answers. */
interface LinkView {
  gateways: Array<{ carrier: string; gateway: string; up: boolean; last_status: number | null; rtt_ms: number | null; checked_at: string | null }>;
  registrations: Array<{ carrier: string; state: string; expires_at: string | null; last_status: number | null; last_error: string | null }>;
}

const NAME_MAX = 64;

const NEW_CARRIER: CarrierSettings = {
  sources: [], gateways: [], routes: [{ prefix: '', priority: 0, weight: 1 }], auth: null, registration: null,
  numbers: E164_RULES, dtmf: 'rfc2833', codecs: [], srtp: 'off', optionsPingS: null,
};

/** The carrier as `--json` prints it (docs/carriers.md): the password is never shown, only whether one is set. */
export const carrierView = (c: Carrier) => ({
  id: c.id, name: c.name, created_at: c.createdAt,
  sources: c.sources, gateways: c.gateways, routes: c.routes,
  auth: c.auth && { username: c.auth.username, realm: c.auth.realm, password_set: true },
  registration: c.registration,
  numbers: {
    format: c.numbers.format, country_code: c.numbers.countryCode, national_prefix: c.numbers.nationalPrefix,
    international_prefix: c.numbers.internationalPrefix, tech_prefix: c.numbers.techPrefix,
  },
  dtmf: c.dtmf, codecs: c.codecs, srtp: c.srtp, options_ping_s: c.optionsPingS,
});

const line = (c: Carrier) => [
  c.name,
  c.gateways.map((g) => `${hostAndPort(g.host, g.port)}${g.transport === 'udp' ? '' : `;${g.transport}`}`).join(',') || '-',
  c.routes.map((r) => r.prefix || '*').join(',') || '-',
  c.auth ? `auth ${c.auth.username}` : '',
  c.registration ? 'registers' : '',
].filter(Boolean).join('\t');

const collect = (value: string, all: string[] = []) => [...all, value];

/** The options `add` and `update` share. */
function settingOptions(cmd: Command): Command {
  return cmd
    .option('--address <host[:port]>', 'shorthand: one address that is both the source of its calls and its one UDP gateway (5060 when no port)')
    .option('--source <address|cidr[:port]>', 'an address or range its calls come from (repeat for several)', collect)
    .option('--gateway <host[:port][;transport=udp|tcp|tls][;priority=N][;weight=N]>', 'where calls to numbers go (repeat for several)', collect)
    .option('--prefix <prefix[;priority=N][;weight=N]>', 'route numbers starting with this (e.g. +44) here; * for every number (repeat for several)', collect)
    .option('--username <user>', 'digest username for its challenges')
    .option('--password <password>', 'digest password (stored sealed, never shown)')
    .option('--realm <domain>', 'SIP domain of the account (registration address-of-record)')
    .option('--no-auth', 'remove the credentials')
    .option('--register', 'register to the provider with the credentials')
    .option('--no-register', 'stop registering')
    .option('--registrar <host[:port][;transport=T]>', 'where to register (the first gateway when not given)')
    .option('--register-expires <seconds>', 'registration expiry asked for (3600 when not given)')
    .option('--number-format <e164|international|national>', 'how the provider writes numbers')
    .option('--country-code <digits>', 'the provider\'s country (national format)')
    .option('--national-prefix <digits>', 'e.g. 0 (national format)')
    .option('--international-prefix <digits>', 'e.g. 00 or 011 (national format)')
    .option('--tech-prefix <prefix>', 'put in front of the called number on the way out, removed on the way in')
    .option('--dtmf <rfc2833|info|inband>', 'how the provider sends keypresses')
    .option('--codecs <list>', 'codecs in order of preference, e.g. PCMA,PCMU')
    .option('--srtp <off|offered|required>', 'SRTP on TLS gateways')
    .option('--options-ping <seconds>', 'send SIP OPTIONS to each gateway this often and skip one that stops answering (0: none)');
}

export function carrierCommands(program: Command, run: Runner): void {
  const carrier = program.command('carrier').description('carriers: SIP providers, the sources of DID calls and the routes for calls to numbers');

  settingOptions(carrier.command('add').description('add a carrier (docs/carriers.md)')
    .requiredOption('--name <name>', 'a unique name, shown as the source of its calls'))
    .action(run(async (ctx, flags: CarrierFlags & { name: string }) => {
      const problem = nameProblem(flags.name, NAME_MAX);
      if (problem) throw new CliError(`--name ${problem}`);
      const settings = carrierSettings(flags, NEW_CARRIER, (p) => ctx.secrets.seal(p));
      try {
        const c = await ctx.store.carriers.add(flags.name, settings);
        ctx.out(carrierView(c), `carrier ${c.name} added`);
      } catch (err) {
        if (err instanceof CarrierNameTakenError) throw new CliError(err.message);
        throw err;
      }
    }));

  settingOptions(carrier.command('update <name>').description('change some settings of a carrier (a list option replaces that whole list)'))
    .action(run(async (ctx, name: string, flags: CarrierFlags) => {
      const was = await ctx.store.carriers.byName(name);
      if (!was) throw new CliError(`no carrier named "${name}"`, 1);
      const c = await ctx.store.carriers.update(name, carrierSettings(flags, was, (p) => ctx.secrets.seal(p)));
      if (!c) throw new CliError(`no carrier named "${name}"`, 1);
      ctx.out(carrierView(c), `carrier ${c.name} updated`);
    }));

  carrier.command('show <name>').description('show one carrier')
    .action(run(async (ctx, name: string) => {
      const c = await ctx.store.carriers.byName(name);
      if (!c) throw new CliError(`no carrier named "${name}"`, 1);
      ctx.out(carrierView(c), JSON.stringify(carrierView(c), null, 2));
    }));

  carrier.command('list').description('list carriers')
    .action(run(async (ctx) => {
      const all = await ctx.store.carriers.list();
      ctx.out(all.map(carrierView), all.length ? all.map(line) : 'no carriers');
    }));

  carrier.command('status').description("the running server's links to its carriers: gateways' answers to OPTIONS, registrations")
    .option('--url <url>', 'server base URL (default http://HOST:PORT from the configuration)')
    .action(run(async (ctx, flags: { url?: string }) => {
      const links = await (await operatorRequest(ctx, '/operator/carriers', {}, flags.url)).json() as LinkView;
      ctx.out(links, [
        ...links.gateways.map((g) => `gateway ${g.gateway}\t${g.up ? 'up' : 'DOWN'}\t${g.last_status ?? 'no answer'}${g.rtt_ms === null ? '' : `\t${g.rtt_ms} ms`}`),
        ...links.registrations.map((r) => `registration ${r.carrier}\t${r.state}${r.expires_at ? `\tuntil ${r.expires_at}` : ''}${r.last_error ? `\t${r.last_error}` : ''}`),
      ].join('\n') || 'no gateway pinged, no registration');
    }));

  carrier.command('remove <name>').description('remove a carrier (its calls are refused from now on)')
    .action(run(async (ctx, name: string) => {
      if (!(await ctx.store.carriers.remove(name))) throw new CliError(`no carrier named "${name}"`, 1);
      ctx.out({ removed: name }, `carrier ${name} removed`);
    }));
}
