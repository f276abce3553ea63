#!/usr/bin/env node
// `npm start`: compiles src/ into dist/ only when a source file changed since the last build (a built checkout
// starts at once), then runs the server from dist/.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const stamp = path.join(root, 'dist', '.build-stamp');
const inputs = [path.join(root, 'src'), path.join(root, 'tsconfig.json'), path.join(root, 'tsconfig.build.json'), path.join(root, 'package-lock.json')];

function newest(p) {
  const s = statSync(p);
  if (!s.isDirectory()) return s.mtimeMs;
  return readdirSync(p).reduce((max, name) => Math.max(max, newest(path.join(p, name))), s.mtimeMs);
}

if (!existsSync(stamp) || Math.max(...inputs.filter(existsSync).map(newest)) > statSync(stamp).mtimeMs) {
  process.stderr.write('ringbase: compiling TypeScript (sources changed since the last build)...\n');
  const tsc = path.join(root, 'node_modules', 'typescript', 'bin', 'tsc');
  const built = spawnSync(process.execPath, [tsc, '-p', path.join(root, 'tsconfig.build.json')], { stdio: 'inherit' });
  if (built.status !== 0) process.exit(built.status ?? 1);
  writeFileSync(stamp, `${new Date().toISOString()}\n`);
}
await import(pathToFileURL(path.join(root, 'dist', 'src', 'main.js')).href);
