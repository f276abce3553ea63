import type { Command } from 'commander';
import { readFileSync } from 'node:fs';
import { CliError, type Runner } from './context.js';
import { detectFormat, formatIssues, MarkupError, parseMarkup, type MarkupFormat } from '../markup/index.js';

/** Lints a markup document: exit 0 with the parsed verbs, or exit 1 with every error and where it is. */
export function markupCommands(program: Command, run: Runner): void {
  program.command('markup').description('call-control markup tools')
    .command('check <file>')
    .description('check a markup document (XML or JSON); "-" reads standard input')
    .option('--format <xml|json>', 'the format (default: guessed from the first character)')
    .option('--voice <name>', "an account's vendor voice <Say> may name besides the built-in ones (repeatable)", (name: string, names: string[]) => [...names, name], [] as string[])
    .action(run((ctx, file: string, flags: { format?: string; voice: string[] }) => {
      const text = file === '-' ? readFileSync(0, 'utf8') : readFileSync(file, 'utf8');
      if (flags.format !== undefined && flags.format !== 'xml' && flags.format !== 'json') throw new CliError('--format must be xml or json');
      try {
        const format: MarkupFormat = (flags.format as MarkupFormat | undefined) ?? detectFormat(text);
        const verbs = parseMarkup(text, format, { voices: { vendor: new Set(flags.voice) } });
        ctx.out({ ok: true, format, verbs }, [`ok: ${verbs.length} verb(s)`, ...verbs.map((v, i) => `  ${i + 1}. ${JSON.stringify(v)}`)]);
      } catch (err) {
        if (!(err instanceof MarkupError)) throw err;
        ctx.out({ ok: false, errors: err.issues }, formatIssues(err.issues));
        process.exitCode = 1;
      }
    }));
}
