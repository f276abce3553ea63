// The machine a benchmark run was taken on, one line per fact, for bench/results.md: figures mean little without it.
import { execFileSync } from 'node:child_process';
import { cpus, totalmem, release, platform } from 'node:os';
import { findEngineBinaries } from '../test/helpers/engines.js';

function versionOf(bin: string, arg: string): string {
  try {
    return execFileSync(bin, [arg], { encoding: 'utf8', timeout: 10_000, stdio: ['ignore', 'pipe', 'pipe'] }).split('\n').map((l) => l.trim()).find((l) => l) ?? 'version unknown';
  } catch {
    return 'version unknown';
  }
}

export function describeMachine(): string[] {
  const cpu = cpus();
  const bins = findEngineBinaries();
  return [
    `CPU: ${cpu[0]?.model ?? 'unknown'}, ${cpu.length} cores`,
    `Memory: ${(totalmem() / 2 ** 30).toFixed(1)} GiB`,
    `OS: ${platform()} ${release()}`,
    `Node: ${process.version}`,
    bins ? `drachtio-server: ${versionOf(bins.drachtio, '--version')}` : 'drachtio-server: not found (engine rows skipped)',
    bins ? `FreeSWITCH: ${versionOf(bins.freeswitch, '-version')}` : 'FreeSWITCH: not found (engine rows skipped)',
    `sipp: ${versionOf('sipp', '-v').replace(/^\W+/, '')}`,
  ];
}
