#!/usr/bin/env node
// Entry point of the `conform` CLI: registers the TypeScript loader, then runs the CLI.
import { register } from 'tsx/esm/api';

// vitest imported after tsx's loader is registered is loaded through it (~150 MB more RSS);
// the commands that run suites load vitest's Node API first, and the runner reuses it.
const command = process.argv[2];
if (command === 'run' || command === 'faults') await import('vitest/node');
register();
const { main } = await import('../src/cli/main.ts');
process.exitCode = await main(process.argv.slice(2));
