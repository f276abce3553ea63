import type { Command } from 'commander';
import type { Runner } from './context.js';
import { operatorRequest } from './operator-client.js';
import type { MediaServerStatus } from '../engine/port.js';

const line = (s: MediaServerStatus) => `${s.name.padEnd(24)} ${s.state.padEnd(10)} ${s.load} session(s)`;

/** The running server's FreeSWITCH media servers: list, drain before maintenance, undrain after. */
export function mediaCommands(program: Command, run: Runner): void {
  const media = program.command('media').description("the running server's FreeSWITCH media servers (FREESWITCH_SERVERS)");
  media.command('list').description('state (up, draining, unhealthy, down) and sessions of each')
    .option('--url <url>', 'server base URL (default http://HOST:PORT from the configuration)')
    .action(run(async (ctx, flags: { url?: string }) => {
      const { data } = await (await operatorRequest(ctx, '/operator/media-servers', {}, flags.url)).json() as { data: MediaServerStatus[] };
      ctx.out(data, data.map(line).join('\n'));
    }));
  for (const [verb, draining, what] of [['drain', true, 'take no new calls; its calls finish'], ['undrain', false, 'take new calls again']] as const) {
    media.command(`${verb} <host:port>`).description(what)
      .option('--url <url>', 'server base URL (default http://HOST:PORT from the configuration)')
      .action(run(async (ctx, name: string, flags: { url?: string }) => {
        const status = await (await operatorRequest(ctx, `/operator/media-servers/${encodeURIComponent(name)}`, { method: 'POST', body: { draining } }, flags.url)).json() as MediaServerStatus;
        ctx.out(status, line(status));
      }));
  }
}
