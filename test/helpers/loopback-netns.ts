// Runs the importing test file again inside a network namespace whose only interface is loopback, so a
// browser seat can neither offer nor be sent media on any other address of the machine. Import it before
// anything else: the outer process prints only a timeout comment and exits with the inner run's status, so tap
// reads the inner run's TAP stream as the file's own.
import { spawnSync } from 'node:child_process';

const INSIDE = 'RINGBASE_LOOPBACK_NETNS';
/** The longest a file's inner run may take (its own t.setTimeout bounds its tests within it). */
const INNER_RUN_LIMIT_MS = 15 * 60_000;

/** Re-runs this file in the namespace and exits with its status; returns why not when that cannot be done. */
function runInside(): string {
  const probe = spawnSync('unshare', ['-rn', 'sh', '-c', 'ip link set lo up'], { encoding: 'utf8' });
  if (probe.error || probe.status !== 0) {
    return `a loopback-only network namespace is needed (unshare -rn with iproute2): ${probe.error?.message ?? probe.stderr.trim()}`;
  }
  // tap cannot hear the inner run ask for more time (t.setTimeout speaks over this process's IPC channel, which the
  // inner run does not have), so this process asks for it the other way tap reads: a comment in its TAP stream.
  process.stdout.write(`# timeout=${INNER_RUN_LIMIT_MS}\n`);
  const run = spawnSync('unshare', ['-rn', 'sh', '-c', 'ip link set lo up && exec "$@"', 'sh', process.execPath, ...process.execArgv, process.argv[1]!], {
    stdio: 'inherit', env: { ...process.env, [INSIDE]: '1' },
  });
  process.exit(run.status ?? 1);
}

/** Why the namespace cannot be had here (the tests that need it skip with this), or null inside it. */
export const loopbackNetnsUnavailable: string | null = process.env[INSIDE] === '1' ? null : runInside();
