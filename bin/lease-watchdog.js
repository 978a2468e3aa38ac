#!/usr/bin/env node
// The `lease-watchdog` command. Runs the TypeScript sources through tsx, so that `npx
// lease-watchdog` works straight after `npm ci`, with no build step.
import { register } from 'tsx/esm/api';

register();
const { cli } = await import('../lambda/cli/main.ts');
await cli();
