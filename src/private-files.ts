// Everything under the data dir is the platform's own: the database (with sealed secrets and call data),
// recordings, cached media. Only the service's user may read it. main.ts also sets umask 077, but tests and
// embedders build the app without main.ts, so every place that creates such a path sets its mode explicitly.
import { chmodSync, mkdirSync } from 'node:fs';

export const PRIVATE_DIR_MODE = 0o700;
export const PRIVATE_FILE_MODE = 0o600;

/** Creates dir (and missing parents) and sets it to 0700, even when it already existed with a wider mode. */
export function ensurePrivateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  restrict(dir, PRIVATE_DIR_MODE);
}

/** Sets an existing file to 0600; a file that does not exist (yet) is left alone. */
export function makePrivate(file: string): boolean {
  return restrict(file, PRIVATE_FILE_MODE);
}

/**
 * False when the path is missing or owned by another user (EPERM): e.g. a recording FreeSWITCH wrote as root
 * in the Docker setup. Such a file sits in a 0700 directory of ours, which is what keeps it private.
 */
function restrict(target: string, mode: number): boolean {
  try {
    chmodSync(target, mode);
    return true;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'EPERM') return false;
    throw err;
  }
}
