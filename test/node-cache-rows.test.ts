/**
 * The node cache keeps one compact row per Node between checks (node-rows.ts): every field as the
 * reader projected it, the labels and taints shared by the nodes that have the same.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Interner, NameTable, projectNode } from '../lambda/adapters/kube/decode/projection.js';
import { NodeCache } from '../lambda/adapters/kube/node-cache.js';
import { MAX_SHARED_SETS } from '../lambda/adapters/kube/node-rows.js';
import type { NodeInfo } from '../lambda/core/model.js';

/** A Node as the API lists it, with the labels a check reads. */
function apiNode(name: string, zone: string, taints: unknown[] = []) {
  return {
    metadata: {
      name,
      creationTimestamp: '2026-11-29T10:00:00Z',
      labels: {
        'topology.kubernetes.io/zone': zone,
        'eks.amazonaws.com/nodegroup': 'general',
        'node.kubernetes.io/instance-type': 'm7g.large',
      },
    },
    spec: { providerID: `aws:///${zone}/i-${name}`, taints },
    status: { conditions: [{ type: 'Ready', status: 'True' }] },
  };
}

const LABEL_KEYS = new Set([
  'topology.kubernetes.io/zone',
  'eks.amazonaws.com/nodegroup',
  'node.kubernetes.io/instance-type',
]);

/** A whole list in the cache, as node-reads.ts puts one: each node made a row, then all kept. */
function replace(cache: NodeCache, nodes: readonly NodeInfo[]): void {
  cache.replaceRows(nodes.map((n) => cache.row(n)));
}

function cached(nodes: NodeInfo[]): ReadonlyMap<string, NodeInfo> {
  const cache = new NodeCache(60_000, () => 0);
  replace(cache, nodes);
  return cache.current() as ReadonlyMap<string, NodeInfo>;
}

describe('node cache rows', () => {
  const taint = { key: 'dedicated', value: 'gpu', effect: 'NoSchedule' };
  const projected = [
    apiNode('a', 'eu-west-1a'),
    apiNode('b', 'eu-west-1a', [taint]),
    apiNode('c', 'eu-west-1b', [taint]),
  ].map((n) => projectNode(n, LABEL_KEYS) as NodeInfo);

  it('keeps every field of a projected Node', () => {
    const rows = cached(projected);
    for (const node of projected) assert.deepStrictEqual(rows.get(node.name), node);
  });

  it('shares one labels object between nodes with the same labels, and one taint list', () => {
    const rows = cached(projected);
    const [a, b, c] = ['a', 'b', 'c'].map((n) => rows.get(n) as NodeInfo);
    assert.equal(a?.labels, b?.labels);
    assert.notEqual(a?.labels, c?.labels);
    assert.equal(b?.taints, c?.taints);
    assert.equal(c?.labels['topology.kubernetes.io/zone'], 'eu-west-1b');
  });

  it('a whole list again keeps the rows of the unchanged nodes, and builds one for a changed node', () => {
    const cache = new NodeCache(60_000, () => 0);
    replace(cache, projected);
    const before = cache.current() as ReadonlyMap<string, NodeInfo>;
    const again = [
      apiNode('a', 'eu-west-1a'),
      apiNode('b', 'eu-west-1a', [taint]),
      apiNode('c', 'eu-west-1c', [taint]),
    ].map((n) => projectNode(n, LABEL_KEYS) as NodeInfo);
    replace(cache, again);
    const after = cache.current() as ReadonlyMap<string, NodeInfo>;
    assert.equal(after.get('a'), before.get('a'));
    assert.equal(after.get('b'), before.get('b'));
    assert.notEqual(after.get('c'), before.get('c'));
    assert.equal(after.get('c')?.labels['topology.kubernetes.io/zone'], 'eu-west-1c');
    for (const node of again) assert.deepStrictEqual(after.get(node.name), node);
  });

  it('a node read afresh shares the sets already kept', () => {
    const cache = new NodeCache(60_000, () => 0);
    replace(cache, projected);
    cache.update('d', projectNode(apiNode('d', 'eu-west-1a'), LABEL_KEYS));
    const rows = cache.current() as ReadonlyMap<string, NodeInfo>;
    assert.equal(rows.get('d')?.labels, rows.get('a')?.labels);
  });

  it(`stops sharing past ${MAX_SHARED_SETS} distinct label sets, and keeps each node's own`, () => {
    const many = Array.from(
      { length: MAX_SHARED_SETS + 2 },
      (_, i) => projectNode(apiNode(`n${i}`, `zone-${i}`), LABEL_KEYS) as NodeInfo,
    );
    const rows = cached(many);
    const last = rows.get(`n${MAX_SHARED_SETS + 1}`);
    assert.equal(last?.labels['topology.kubernetes.io/zone'], `zone-${MAX_SHARED_SETS + 1}`);
  });
});

describe('what one read shares', () => {
  it('one labels object for the nodes of a read whose kept labels are the same', () => {
    const interner = new Interner();
    const [a, b, c] = [
      apiNode('a', 'eu-west-1a'),
      apiNode('b', 'eu-west-1a'),
      apiNode('c', 'eu-west-1b'),
    ].map((n) => projectNode(n, LABEL_KEYS, interner) as NodeInfo);
    assert.equal(a?.labels, b?.labels);
    assert.notEqual(a?.labels, c?.labels);
    assert.deepEqual(c?.labels, apiNode('c', 'eu-west-1b').metadata.labels);
  });

  it('names are kept from read to read, and let go once a read no longer sees them', () => {
    const names = new NameTable();
    for (let i = 0; i < 2_000; i++) names.intern(`node-${i}`);
    names.turn();
    assert.equal(names.size, 2_000);
    // A Lease and its Node: one name seen twice.
    for (let i = 0; i < 10; i++) assert.equal(names.intern(`node-${i}`), `node-${i}`);
    for (let i = 0; i < 10; i++) names.intern(`node-${i}`);
    names.turn();
    assert.equal(names.size, 10);
  });
});
