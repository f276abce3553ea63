import type { Command } from 'commander';
import { CliError, type Runner } from './context.js';
import { operatorRequest } from './operator-client.js';

interface Flags { to: string; from: string; digits: string[]; say: string[]; maxSeconds: string; url?: string }

function describe(e: Record<string, any>): string {
  const t = `${(Number(e.at_ms) / 1000).toFixed(2).padStart(7)}s`;
  if (e.source === 'caller') {
    const what = e.type === 'heard-say' ? `hears: "${e.text}"` : e.type === 'heard-play' ? `hears audio ${e.url}` : e.type === 'pressed' ? `presses ${e.digit}` : e.type === 'said' ? `says: "${e.text}"`
      : e.type === 'hangup' ? `call ends (${e.cause}, by ${e.by === 'local' ? 'platform' : 'caller'})` : e.type;
    return `${t}  caller    ${what}`;
  }
  if (e.source === 'platform') return `${t}  platform  ${e.type} ${JSON.stringify(e.detail)}`;
  return `          call ${e.call_sid ?? '(not created)'} done`;
}

/** Drives a sandbox call through the running server and prints each step as it happens. */
export function simulateCommands(program: Command, run: Runner): void {
  program.command('simulate').description('try call flows without a phone (sandbox calls through the running server)')
    .command('inbound')
    .requiredOption('--to <e164>', 'one of your numbers')
    .requiredOption('--from <e164>', 'the caller')
    .option('--digits <keys>', 'keys typed at each prompt for input (repeatable, e.g. --digits 1 --digits 42#)', (v: string, all: string[]) => [...all, v], [])
    .option('--say <words>', 'words said at each prompt for speech (repeatable, e.g. --say sales --say "yes please")', (v: string, all: string[]) => [...all, v], [])
    .option('--max-seconds <n>', 'the caller hangs up after this long', '120')
    .option('--url <url>', 'server base URL (default http://HOST:PORT from the configuration)')
    .action(run(async (ctx, flags: Flags) => {
      const res = await operatorRequest(ctx, '/operator/simulate/inbound', {
        method: 'POST', accept: 'application/x-ndjson',
        body: { to: flags.to, from: flags.from, digits: flags.digits, say: flags.say, max_seconds: Number(flags.maxSeconds) },
      }, flags.url);
      if (!res.body) throw new CliError('the server sent no steps');
      let buffered = '';
      for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
        buffered += Buffer.from(chunk).toString('utf8');
        let nl: number;
        while ((nl = buffered.indexOf('\n')) >= 0) {
          const text = buffered.slice(0, nl);
          buffered = buffered.slice(nl + 1);
          if (text.trim()) process.stdout.write((ctx.json ? text : describe(JSON.parse(text) as Record<string, unknown>)) + '\n');
        }
      }
    }));
}
