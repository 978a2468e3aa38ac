/**
 * The installed command on a Node older than it supports: one line naming the required and the
 * found version, exit 2 (not 1, "nodes alerting"), before any import that could fail. On Node 20
 * it printed `unexpected error: Cannot read properties of undefined (reading 'bind')` with a stack
 * trace and exited 1 (undici, loaded by the Kubernetes client, needs a newer Node).
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { promisify } from 'node:util';
// @ts-expect-error: plain JavaScript, run by any Node before the compiled CLI is imported
import { REQUIRED_NODE, unsupportedNode } from '../bin/node-version.js';

const run = promisify(execFile);
const BIN = new URL('../bin/lease-watchdog.js', import.meta.url).pathname;
const packageJson = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));

/** The machine's own Node and its version, when it is older than the command supports. */
async function oldMachineNode(): Promise<{ path: string; version: string } | undefined> {
  for (const path of ['/usr/bin/node', '/usr/local/bin/node']) {
    if (!existsSync(path)) continue;
    const version = (await run(path, ['--version'])).stdout.trim().replace(/^v/, '');
    if (unsupportedNode(version) !== undefined) return { path, version };
  }
  return undefined;
}

describe('the command on a Node older than it supports', () => {
  it('says which Node it needs, and which it found, in one line', () => {
    const line = unsupportedNode('20.20.2');
    assert.equal(
      line,
      'lease-watchdog: needs Node.js 22.19 or later, found 20.20.2: install Node.js 22.19 or later (nodejs.org) and run it again',
    );
    assert.equal(unsupportedNode('22.18.0')?.includes('found 22.18.0'), true);
    assert.equal(unsupportedNode('22.19.0'), undefined);
    assert.equal(unsupportedNode('24.1.0'), undefined);
    assert.equal(unsupportedNode('23.0.0'), undefined);
  });

  it('the bin, run by an older Node, exits 2 with that line and nothing else', async (t) => {
    const old = await oldMachineNode();
    if (old === undefined) {
      t.skip('no Node older than 22.19 on this machine (/usr/bin/node, /usr/local/bin/node)');
      return;
    }
    const failed = await run(old.path, [BIN, 'check', '--kubeconfig', '/nonexistent']).then(
      () => assert.fail('exit 0'),
      (error: { code: number; stdout: string; stderr: string }) => error,
    );
    assert.equal(failed.code, 2, failed.stderr);
    assert.equal(failed.stdout, '');
    assert.equal(failed.stderr, `${unsupportedNode(old.version)}\n`);
  });

  it('requires what package.json engines says', () => {
    assert.equal(packageJson.engines.node, `>=${REQUIRED_NODE.join('.')}`);
  });
});
