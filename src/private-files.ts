// Everything under the data dir is the platform's own: the database (with sealed secrets and call data),
// recordings, cached media. Only the service's user may read it. main.ts also sets umask 077, but tests and
// embedders build the app without main.ts, so every place that creates such a path sets its mode explicitly.
import { chmodSync, linkSync, mkdirSync, readFileSync, unlinkSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';

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
 * The content of `file`, written with `content` (0600) if it does not exist yet. Written whole under a name of its
 * own, then linked into place: several processes starting together on one data dir (nodes of a cluster sharing it)
 * never read a half-written file, and the first to link wins; the others read what it wrote.
 */
export function readOrCreatePrivateFile(file: string, content: string): string {
  const draft = `${file}.${process.pid}.${randomBytes(6).toString('hex')}.draft`;
  writeFileSync(draft, content, { mode: PRIVATE_FILE_MODE, flag: 'wx' });
  try {
    linkSync(draft, file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  } finally {
    unlinkSync(draft);
  }
  return readFileSync(file, 'utf8');
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
