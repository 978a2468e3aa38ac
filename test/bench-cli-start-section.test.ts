/**
 * What `npm run bench:cli-start` writes: its section of docs/BENCHMARKS.md from the medians, the
 * ratio to kubectl and the goal's verdict per row (issue 20 §1). Rendering only: nothing is timed.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  CLI_START_HEADING,
  type CliStartResult,
  renderCliStart,
} from '../testkit/cli-start-section.js';

const RESULT: CliStartResult = {
  date: '2026-12-02',
  node: 'v24.21.0',
  kubectlVersion: 'v1.32.4',
  runs: 7,
  nodes: 12,
  bareNodeMs: 100,
  versionMs: 300.4,
  rows: [
    {
      what: 'check, 12 nodes',
      ours: 'lease-watchdog check',
      kubectl: 'kubectl get leases -n kube-node-lease',
      oursMs: 450,
      kubectlMs: 300,
    },
    {
      what: 'wrong CA',
      ours: 'lease-watchdog check',
      kubectl: 'kubectl get leases -n kube-node-lease',
      oursMs: 451,
      kubectlMs: 300,
    },
  ],
};

describe('the bench:cli-start section', () => {
  it('gives each pair its medians, its ratio and whether it is within 1.5× kubectl, as shown', () => {
    const lines = renderCliStart(RESULT);
    assert.equal(lines[0], `${CLI_START_HEADING} (2026-12-02)`);
    assert.ok(
      lines.includes(
        '| check, 12 nodes | `lease-watchdog check` | 450 ms | `kubectl get leases -n kube-node-lease` | 300 ms | 1.50× | met |',
      ),
    );
    assert.ok(
      lines.includes(
        '| wrong CA | `lease-watchdog check` | 451 ms | `kubectl get leases -n kube-node-lease` | 300 ms | 1.50× | met |',
      ),
      'the verdict follows the ratio as shown (1.503 shows as 1.50)',
    );
    assert.ok(
      renderCliStart({ ...RESULT, versionMs: 301 }).includes(
        '`lease-watchdog --version`: 301 ms (3.01× a bare node), **missed**.',
      ),
    );
    assert.ok(lines.includes('`lease-watchdog --version`: 300 ms (3.00× a bare node), met.'));
    assert.equal(lines.at(-1), '');
  });
});
