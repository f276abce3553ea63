#!/usr/bin/env node
// Runs the TypeScript CLI straight from a checkout (after npm install), no build step needed.
import { tsImport } from 'tsx/esm/api';

await tsImport('../src/cli/main.ts', import.meta.url);
