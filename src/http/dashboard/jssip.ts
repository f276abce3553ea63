// JsSIP for browser agents, served by Ringbase itself (/dashboard/assets/jssip.js) so an agent on a network without
// the Internet can still take calls: the agent console's softphone and the trunk page's snippet import it. JsSIP
// publishes CommonJS only; esbuild bundles the installed (lockfile-pinned) package into one ES module the first time
// it is asked for, with the licence of every package it holds at the top.
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { build } from 'esbuild';

const require = createRequire(import.meta.url);

/** Where the bundle is served, under the dashboard's prefix. */
export const JSSIP_ASSET_PATH = '/dashboard/assets/jssip.js';

/** The package directory holding `file` (a path esbuild reports, relative to `root`). */
function packageDir(root: string, file: string): string {
  const parts = path.resolve(root, file).split(path.sep);
  const at = parts.lastIndexOf('node_modules');
  return parts.slice(0, at + (parts[at + 1]?.startsWith('@') ? 3 : 2)).join(path.sep);
}

/** "name@version" and the licence text of one bundled package, as a comment that nothing inside can close early. */
function licenceComment(dir: string): string {
  const pkg = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { name: string; version: string; license?: string };
  const file = readdirSync(dir).find((name) => /^licen[cs]e(\.\w+)?$/i.test(name));
  const text = file ? readFileSync(path.join(dir, file), 'utf8').trim() : `License: ${pkg.license ?? 'see the package'}`;
  return `/*! ${pkg.name}@${pkg.version}\n${text.replaceAll('*/', '* /')}\n*/`;
}

async function bundle(): Promise<string> {
  const entry = require.resolve('jssip');
  const root = path.dirname(entry);
  const out = await build({
    entryPoints: [entry], absWorkingDir: root, bundle: true, write: false, format: 'esm', platform: 'browser',
    target: 'es2020', minify: true, legalComments: 'none', metafile: true, logLevel: 'silent',
  });
  const dirs = [...new Set(Object.keys(out.metafile.inputs).map((file) => packageDir(root, file)))].sort();
  return `${dirs.map(licenceComment).join('\n')}\n${out.outputFiles[0]!.text}`;
}

let built: Promise<string> | null = null;

/** The bundle, built once per process; a failed build is tried again on the next request. */
export function jssipBundle(): Promise<string> {
  built ??= bundle().catch((err: unknown) => { built = null; throw err; });
  return built;
}
