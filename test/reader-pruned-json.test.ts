/**
 * The pruned reader of list pages (lambda/adapters/kube/decode/pruned-json.ts) against JSON.parse itself: for
 * every body, valid or not, it gives what projecting JSON.parse's result gives, or fails where
 * JSON.parse fails. Hostile items (escapes, unicode, invalid UTF-8, duplicate keys, odd numbers,
 * deep nesting inside the parts it skips), every truncation and many one-byte corruptions of a
 * page; then the reader over HTTPS, against the simulated cluster and a tiny hostile API server.
 */

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { KubeConfig } from '@kubernetes/client-node';
import fc from 'fast-check';
import { tapBodies } from '../lambda/adapters/kube/decode/answer-body.js';
import {
  Interner,
  LEASE_FIELDS,
  NODE_FIELDS,
  projectLease,
  projectNode,
} from '../lambda/adapters/kube/decode/projection.js';
import {
  ALL,
  keepEach,
  keepFields,
  parsePruned,
  pruned,
  WHOLE_PARSE_BYTES,
} from '../lambda/adapters/kube/decode/pruned-json.js';
import { KubeClusterReader, NodeCache } from '../lambda/adapters/kube/kube-reader.js';
import { ClusterReadError } from '../lambda/ports/index.js';
import { SimCluster } from '../sim/cluster.js';
import { type SimServer, startSimServer } from '../sim/server.js';
import { sendJson, startTinyApi, type TinyApi } from '../testkit/tiny-api.js';

const NODE_PAGE = keepFields({ kind: ALL, metadata: ALL, items: keepEach(NODE_FIELDS) });
const LEASE_PAGE = keepFields({ kind: ALL, metadata: ALL, items: keepEach(LEASE_FIELDS) });
const LABEL_KEYS = new Set(['topology.kubernetes.io/zone', 'ünï', 'a"b\\c']);

/** What a check keeps of a page: its kind, metadata, and each item projected (as a Node or a Lease). */
function projected(page: unknown, as: 'node' | 'lease'): unknown {
  const body = page as { kind?: unknown; metadata?: unknown; items?: unknown };
  if (body === null || typeof body !== 'object') return page;
  const items = body.items;
  return {
    kind: body.kind,
    metadata: body.metadata,
    items: Array.isArray(items)
      ? items.map((item) =>
          as === 'lease'
            ? projectLease(item)
            : [
                projectNode(item, undefined, new Interner()),
                projectNode(item, LABEL_KEYS, new Interner()),
              ],
        )
      : items,
  };
}

type Outcome = { ok: true; value: unknown } | { ok: false };

function viaJsonParse(bytes: Buffer, as: 'node' | 'lease' = 'node'): Outcome {
  try {
    return { ok: true, value: projected(JSON.parse(bytes.toString('utf8')), as) };
  } catch {
    return { ok: false };
  }
}

function viaPruned(bytes: Buffer, as: 'node' | 'lease' = 'node'): Outcome {
  try {
    return {
      ok: true,
      value: projected(parsePruned(bytes, as === 'node' ? NODE_PAGE : LEASE_PAGE), as),
    };
  } catch (error) {
    assert.ok(error instanceof SyntaxError, `a SyntaxError, got ${error}`);
    return { ok: false };
  }
}

function same(bytes: Buffer, label: string): void {
  const expected = viaJsonParse(bytes);
  assert.deepEqual(viaPruned(bytes), expected, `${label}: ${bytes.toString('utf8').slice(0, 200)}`);
  // Lease pages keep other fields: the same holds.
  assert.deepEqual(viaPruned(bytes, 'lease'), viaJsonParse(bytes, 'lease'), `${label} (leases)`);
  // A small page is parsed by JSON.parse whole, then pruned (parseKept): the walk's very value.
  for (const keep of [NODE_PAGE, LEASE_PAGE]) {
    assert.deepEqual(
      attempt(() => pruned(JSON.parse(bytes.toString('utf8')), keep)),
      attempt(() => parsePruned(bytes, keep)),
      `${label} (pruned after JSON.parse)`,
    );
  }
}

function attempt(parse: () => unknown): Outcome {
  try {
    return { ok: true, value: parse() };
  } catch {
    return { ok: false };
  }
}

/** Handmade hostile items, as raw JSON text (some invalid UTF-8 added as bytes below). */
const HOSTILE_ITEMS = [
  // Escaped quotes and backslashes in names and labels; a key spelled with escapes.
  String.raw`{"metadata":{"name":"a\"b\\c\\","labels":{"a\"b\\c":"v\"\\","topology.kubernetes.io/zone":"z\/1"}}}`,
  String.raw`{"metadata":{"na\u006de":"escaped-key","\u006cabels":{"x":"\u00e9\ud83d\ude00\ud800"}}}`,
  // Unicode, raw.
  '{"metadata":{"name":"節點-ünï-✓-😀","labels":{"ünï":"ü","topology.kubernetes.io/zone":"東京"}}}',
  // Nested arrays and tricky strings inside skipped subtrees.
  String.raw`{"metadata":{"name":"n1","annotations":{"x":"]}\"{[","y":[[[["\\"]]]]}},"status":{"images":[{"names":["a]","b}\\\""],"sizeBytes":1e3}],"nodeInfo":{"k":[[],[[]],{},{"a":[{}]}]}}}`,
  // Numbers in odd forms, kept and skipped.
  '{"metadata":{"name":"n2"},"spec":{"renewTime":"2026-01-01T00:00:00.000000Z","leaseDurationSeconds":4e1,"unschedulable":true,"x":-0.0E-0},"status":{"capacity":{"cpu":1E+400,"m":-0,"z":0.5e-10}}}',
  '{"metadata":{"name":"n3"},"spec":{"leaseDurationSeconds":-0,"renewTime":1E400}}',
  '{"metadata":{"name":"n4"},"spec":{"leaseDurationSeconds":40.000000000000000001}}',
  // Whole numbers: read by hand up to 15 digits, by JSON.parse beyond.
  '{"metadata":{"name":"n8"},"spec":{"leaseDurationSeconds":0}}',
  '{"metadata":{"name":"n9"},"spec":{"leaseDurationSeconds":999999999999999}}',
  '{"metadata":{"name":"n10"},"spec":{"leaseDurationSeconds":9007199254740993}}',
  '{"metadata":{"name":"n11"},"spec":{"leaseDurationSeconds":123456789012345678901234567890}}',
  // Whitespace everywhere.
  ' \t\r\n{ \t"metadata" \n:\r{ "name"\t: "n5" , "labels" : { } } , "spec" : { "taints" : [ { "key" : "k" , "effect" : "NoSchedule" } ] } }\n',
  // Duplicate keys: the last wins, at every level.
  '{"metadata":{"name":"first"},"metadata":{"name":"second","name":"third","labels":{"a":"1"},"labels":{"ünï":"2"}}}',
  '{"metadata":{"name":"n6"},"spec":{"unschedulable":true},"spec":null,"status":{"conditions":[{"type":"Ready","status":"True"}]},"status":{"conditions":[{"type":"Ready","status":"False","reason":"r","message":"m","type":"Ready"}]}}',
  // Kept fields of the wrong shape.
  '{"metadata":"not an object","spec":[1,2],"status":{"conditions":{"type":"Ready"}}}',
  '{"metadata":{"name":5,"labels":[1],"creationTimestamp":{}},"status":{"conditions":[null,1,"x",[],{"type":"Ready","status":"True","message":"' +
    'm'.repeat(400) +
    '"}]}}',
  '{"metadata":{"name":"n7","deletionTimestamp":"2026-01-01T00:00:00Z","__proto__":{"name":"evil"},"labels":{"__proto__":"x","constructor":"y"}},"spec":{"providerID":"aws:///eu-west-1a/i-1","unschedulable":"true"}}',
  // Items that are no objects.
  '5',
  '"a string item"',
  'null',
  '[{"metadata":{"name":"in-an-array"}}]',
  'true',
];

function page(items: readonly string[]): Buffer {
  return Buffer.from(
    `{"kind":"NodeList","apiVersion":"v1","metadata":{"resourceVersion":"7","x":"c\\"1"},"items":[${items.join(',')}]}`,
  );
}

describe('the pruned reader gives what JSON.parse gives, projected', () => {
  it('on handmade hostile items, one by one and in one page', () => {
    for (const item of HOSTILE_ITEMS) same(page([item]), 'item');
    same(page(HOSTILE_ITEMS), 'all items');
    // Strings are walked four bytes at a time: the same at every alignment of the body.
    for (let shift = 1; shift < 8; shift++) {
      const whole = page(HOSTILE_ITEMS);
      const shifted = Buffer.alloc(whole.length + shift);
      whole.copy(shifted, shift);
      same(shifted.subarray(shift), `shifted by ${shift}`);
    }
    const projectedPage = viaPruned(page(HOSTILE_ITEMS));
    // Not vacuous: the projections see names, labels, taints, conditions.
    assert.ok(projectedPage.ok);
    assert.match(JSON.stringify(projectedPage.value), /escaped-key.*節點-ünï-✓-😀.*東京/s);
    assert.match(JSON.stringify(projectedPage.value), /"third".*"ünï":"2"/s);
  });

  it('on list envelopes: items null, empty, missing, not a list, not an object', () => {
    for (const text of [
      '{"kind":"NodeList","metadata":{},"items":null}',
      '{"kind":"NodeList","items":[]}',
      '{"kind":"NodeList"}',
      '{"kind":"NodeList","items":{"a":1}}',
      '{"kind":"NodeList","items":"x","items":[{"metadata":{"name":"last"}}]}',
      '{"kind":"Status","message":"m","items":[1]}',
      '[1,2]',
      '"x"',
      ' null ',
      '{}',
      '{"metadata":{"remainingItemCount":5,"continue":"t"},"kind":"NodeList","items":[]}',
    ]) {
      same(Buffer.from(text), 'envelope');
    }
  });

  it('on invalid UTF-8 and raw control bytes, inside kept and skipped strings and outside them', () => {
    const bytes = (...parts: (string | number[])[]) =>
      Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : Buffer.from(p))));
    const cases = [
      bytes('{"kind":"NodeList","items":[{"metadata":{"name":"a', [0xff, 0xe2, 0x82], '"}}]}'),
      bytes(
        '{"kind":"NodeList","items":[{"status":{"images":["',
        [0xc3],
        '"]},"metadata":{"name":"x"}}]}',
      ),
      bytes('{"kind":"NodeList","items":[', [0xef, 0xbb, 0xbf], '{}]}'),
      bytes([0xef, 0xbb, 0xbf], '{"kind":"NodeList","items":[]}'),
      bytes('{"kind":"NodeList","items":[{"metadata":{"name":"a', [0x01], '"}}]}'),
      bytes('{"kind":"NodeList","items":[{"status":{"x":"', [0x1f], '"}}]}'),
      bytes('{"kind":"NodeList","items":[{"status":{"x":"', [0x7f], '"}}]}'),
      bytes('{"kind":"NodeList","items":[]}', [0x00]),
      bytes('{"kind":"NodeList","items":[]}\u00a0'),
    ];
    for (const [i, body] of cases.entries()) same(body, `bytes case ${i}`);
  });

  it('on every truncation of a page, and on one-byte corruptions all through it', () => {
    const whole = page(HOSTILE_ITEMS.slice(0, 10));
    for (let end = 0; end < whole.length; end++) {
      assert.equal(viaPruned(whole.subarray(0, end)).ok, false, `truncated at ${end}`);
    }
    const replacements = [...'"\\{}[]:, 0-1eE.tfnu\t'].map((c) => c.charCodeAt(0));
    replacements.push(0x01, 0x80, 0xff);
    let failures = 0;
    // Replayed by its seed; a failure shrinks towards the first byte and the first replacement.
    fc.assert(
      fc.property(
        fc.nat({ max: whole.length - 1 }),
        fc.constantFrom(...replacements),
        (at, byte) => {
          const corrupt = Buffer.from(whole);
          corrupt[at] = byte;
          const expected = viaJsonParse(corrupt);
          if (!expected.ok) failures++;
          assert.deepEqual(viaPruned(corrupt), expected, `byte ${at} = ${byte}`);
        },
      ),
      { seed: 9, numRuns: 4_000 },
    );
    // Both outcomes were exercised.
    assert.ok(failures > 500 && failures < 3_900, `${failures} invalid corruptions`);
  });

  it('on nesting a million levels deep inside a skipped field: no stack overflow', () => {
    const depth = 1_000_000;
    const deep = `{"kind":"NodeList","items":[{"metadata":{"name":"d"},"status":{"images":${'['.repeat(depth)}${']'.repeat(depth)}}}]}`;
    same(Buffer.from(deep), 'deep');
    const unclosed = `{"kind":"NodeList","items":[{"status":{"images":${'[{"a":'.repeat(depth)}`;
    assert.equal(viaPruned(Buffer.from(unclosed)).ok, false);
  });
});

describe('the reader over HTTPS reads what JSON.parse of the same bytes gives', () => {
  let cluster: SimCluster;
  let sim: SimServer;
  let tiny: TinyApi;

  before(async () => {
    cluster = new SimCluster({ seed: 5 });
    cluster.addNodes(1_100);
    sim = await startSimServer({ cluster, token: 'sim-token' });
    tiny = await startTinyApi();
  });
  after(async () => {
    tapBodies(undefined);
    await sim.close();
    await tiny.close();
  });

  /** A read, and JSON.parse's projection of every page it read. */
  async function readAndParse(kubeConfig: KubeConfig) {
    const bodies: Buffer[] = [];
    tapBodies((body) => bodies.push(body));
    try {
      const reader = new KubeClusterReader({
        kubeConfig,
        cluster: 'c',
        namespace: 'kube-node-lease',
        labelKeys: [...LABEL_KEYS],
        // The pruned JSON reader's test: Nodes in JSON (protobuf is test/node-protobuf.test.ts).
        nodesAsJson: true,
      });
      const snapshot = await reader.read();
      const parsed = bodies.map((b) => JSON.parse(b.toString('utf8')) as Record<string, unknown>);
      const items = (kind: string) =>
        parsed.filter((p) => p.kind === kind).flatMap((p) => (p.items as unknown[] | null) ?? []);
      return { snapshot, items };
    } finally {
      tapBodies(undefined);
    }
  }

  it('the simulated cluster: every Node and Lease of 3 pages each', async () => {
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromString(sim.kubeconfig());
    const { snapshot, items } = await readAndParse(kubeConfig);
    const nodes = items('NodeList');
    assert.equal(nodes.length, 1_100);
    const interner = new Interner();
    assert.deepEqual(
      snapshot.nodes,
      nodes.map((n) => projectNode(n, LABEL_KEYS, interner)),
    );
    assert.deepEqual(
      snapshot.leases.map((l) => [l.name, l.createdAt, l.leaseDurationSeconds]),
      items('LeaseList')
        .map((l) => projectLease(l))
        .map((l) => [l?.name, l?.createdAt, l?.leaseDurationSeconds]),
    );
  });

  it('a read with a warm node cache hands JSON.parse no large page: the Table of Nodes is read pruned too', async () => {
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromString(sim.kubeconfig());
    let now = 0;
    const cache = new NodeCache(60_000, () => now);
    const reader = new KubeClusterReader({
      kubeConfig,
      cluster: 'c',
      namespace: 'kube-node-lease',
      labelKeys: [...LABEL_KEYS],
      nodeCache: cache,
    });
    const listed = (await reader.read()).nodes ?? [];
    // A whole list is projected straight to the cache's rows: one object per node, not two.
    const rows = cache.current();
    assert.ok(listed.length > 0 && listed.every((node) => rows?.get(node.name) === node));
    now = 1_000;
    const parse = JSON.parse;
    let longest = 0;
    JSON.parse = ((text: string, reviver?: Parameters<typeof parse>[1]) => {
      longest = Math.max(longest, String(text).length);
      return parse(text, reviver);
    }) as typeof JSON.parse;
    let snapshot: Awaited<ReturnType<typeof reader.read>>;
    try {
      sim.resetStats();
      snapshot = await reader.read();
    } finally {
      JSON.parse = parse;
    }
    assert.ok(
      sim.sent.some((a) => a.accept?.includes('as=Table')),
      'the read listed the Table of Nodes',
    );
    assert.equal(snapshot.nodes?.length, 1_100);
    // A Table page of 1,100 rows is ~250 KB; a kept value (a label set, a cell) is far shorter,
    // and only a body up to WHOLE_PARSE_BYTES (a Node's GET) is handed to JSON.parse whole.
    assert.ok(longest <= WHOLE_PARSE_BYTES, `JSON.parse was handed ${longest} characters at once`);
  });

  it('hostile Nodes from a tiny API server', async () => {
    const named = HOSTILE_ITEMS.filter((item) => {
      const node = projectNode(JSON.parse(item));
      return node !== undefined && typeof node.name === 'string';
    });
    tiny.serve((req, res) => {
      const path = new URL(req.url ?? '/', 'https://x').pathname;
      if (path === '/api/v1/nodes') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(page(HOSTILE_ITEMS));
        return;
      }
      const leases = named.map((item) => {
        const name = projectNode(JSON.parse(item))?.name;
        return `{"metadata":{"name":${JSON.stringify(name)}},"spec":{"renewTime":"2026-01-01T00:00:00.000000Z","leaseDurationSeconds":40}}`;
      });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(`{"kind":"LeaseList","metadata":{},"items":[${leases.join(',')}]}`);
    });
    const { snapshot, items } = await readAndParse(tiny.kubeConfig());
    const interner = new Interner();
    const expected = items('NodeList')
      .map((n) => projectNode(n, LABEL_KEYS, interner))
      .filter((n) => n !== undefined);
    assert.ok(expected.length >= 8, `${expected.length} named nodes`);
    assert.deepEqual(snapshot.nodes, expected);
  });

  it('a page broken deep inside a skipped field ends the read with the one-line not-JSON error', async () => {
    tiny.serve((req, res) => {
      const path = new URL(req.url ?? '/', 'https://x').pathname;
      if (path !== '/api/v1/nodes') return sendJson(res, { kind: 'LeaseList', items: [] });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"kind":"NodeList","items":[{"metadata":{"name":"n"},"status":{"images":[[1,]]}}]}');
    });
    const reader = new KubeClusterReader({
      kubeConfig: tiny.kubeConfig(),
      cluster: 'c',
      namespace: 'kube-node-lease',
    });
    await assert.rejects(reader.read(), (error) => {
      assert.ok(error instanceof ClusterReadError);
      assert.equal(error.failure, 'invalid-response');
      assert.match(
        error.message,
        /^the API server's answer to listing nodes is not JSON \(HTTP 200, application\/json\)$/,
      );
      return true;
    });
  });
});
