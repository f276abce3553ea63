// Log lines for a person at a terminal: `12:03:04 INFO  calls  incoming call  callSid=CA…`. Anywhere else (a
// pipe, a file, a log collector) the server writes pino's JSON lines unchanged.
import { Writable } from 'node:stream';

const LEVELS: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO ', 40: 'WARN ', 50: 'ERROR', 60: 'FATAL' };
const OMIT = new Set(['level', 'time', 'pid', 'hostname', 'msg', 'component']);

function value(v: unknown): string {
  if (typeof v === 'string') return /\s/.test(v) ? JSON.stringify(v) : v;
  return JSON.stringify(v);
}

export function formatLogLine(line: string): string {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return line;
  }
  const time = new Date(Number(entry.time)).toTimeString().slice(0, 8);
  const fields = Object.entries(entry).filter(([k]) => !OMIT.has(k)).map(([k, v]) => `${k}=${value(v)}`);
  const component = typeof entry.component === 'string' ? `${entry.component}  ` : '';
  return [`${time} ${LEVELS[Number(entry.level)] ?? entry.level} ${component}${String(entry.msg ?? '')}`, ...fields].join('  ');
}

/** A pino destination that prints each JSON line in words to `out`. */
export function prettyDestination(out: NodeJS.WritableStream): Writable {
  return new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const line of chunk.toString('utf8').split('\n')) if (line.trim() !== '') out.write(`${formatLogLine(line)}\n`);
      done();
    },
  });
}
