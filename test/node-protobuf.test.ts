/**
 * Whole Nodes read in Kubernetes' protobuf encoding (lambda/adapters/kube/decode/node-protobuf.ts):
 * protobufjs, an encoder and decoder of its own, writes and reads the same messages, so the
 * wire format is not checked by the hand that wrote it alone; a page decodes to exactly what the
 * pruned JSON reader keeps of the same page in JSON; hostile bytes (every truncation, corruptions,
 * endless varints, lengths past the end) are a SyntaxError and nothing else; and over HTTPS the
 * reader asks for protobuf, takes JSON when a server answers JSON, and reports a protobuf Status
 * and a corrupt body in one line.
 */

import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { KubeConfig } from '@kubernetes/client-node';
import fc from 'fast-check';
import protobuf from 'protobufjs';
import { LIST_FIELDS } from '../lambda/adapters/kube/decode/answer-shapes.js';
import {
  decodeNode,
  decodeNodeList,
  decodeOther,
  PROTOBUF,
} from '../lambda/adapters/kube/decode/node-protobuf.js';
import { MAX_PAGE_VALUES, PageValuesError } from '../lambda/adapters/kube/decode/page-values.js';
import { NODE_OBJECT_FIELDS } from '../lambda/adapters/kube/decode/projection.js';
import { parsePruned } from '../lambda/adapters/kube/decode/pruned-json.js';
import { KubeClusterReader, NodeCache } from '../lambda/adapters/kube/kube-reader.js';
import { ClusterReadError } from '../lambda/ports/index.js';
import { SimCluster } from '../sim/cluster.js';
import type { KubeNode } from '../sim/objects.js';
import { nodeListProto, nodeProto, statusProto } from '../sim/protobuf.js';
import { type SimServer, startSimServer } from '../sim/server.js';
import { LEASES_PATH, sendJson, startTinyApi, type TinyApi } from '../testkit/tiny-api.js';

const NODE_PAGE = LIST_FIELDS.nodes as NonNullable<typeof LIST_FIELDS.nodes>;

/**
 * The messages read, by the field numbers of kubernetes/api core/v1/generated.proto and
 * kubernetes/apimachinery meta/v1 and runtime generated.proto (checked against them on
 * 2026-12-02: api@10b39a39, apimachinery@eed236ce), with managedFields (17) as an unknown field
 * the reader must pass over.
 */
const root = protobuf.Root.fromJSON(<protobuf.INamespace>{
  nested: {
    TypeMeta: {
      fields: { apiVersion: { type: 'string', id: 1 }, kind: { type: 'string', id: 2 } },
    },
    Unknown: {
      fields: {
        typeMeta: { type: 'TypeMeta', id: 1 },
        raw: { type: 'bytes', id: 2 },
        contentEncoding: { type: 'string', id: 3 },
        contentType: { type: 'string', id: 4 },
      },
    },
    Time: { fields: { seconds: { type: 'int64', id: 1 }, nanos: { type: 'int32', id: 2 } } },
    ManagedFieldsEntry: {
      fields: { manager: { type: 'string', id: 1 }, operation: { type: 'string', id: 2 } },
    },
    ObjectMeta: {
      fields: {
        name: { type: 'string', id: 1 },
        uid: { type: 'string', id: 5 },
        resourceVersion: { type: 'string', id: 6 },
        creationTimestamp: { type: 'Time', id: 8 },
        deletionTimestamp: { type: 'Time', id: 9 },
        labels: { keyType: 'string', type: 'string', id: 11 },
        annotations: { keyType: 'string', type: 'string', id: 12 },
        finalizers: { rule: 'repeated', type: 'string', id: 14 },
        managedFields: { rule: 'repeated', type: 'ManagedFieldsEntry', id: 17 },
      },
    },
    ListMeta: {
      fields: {
        resourceVersion: { type: 'string', id: 2 },
        continue: { type: 'string', id: 3 },
        remainingItemCount: { type: 'int64', id: 4 },
      },
    },
    Taint: {
      fields: {
        key: { type: 'string', id: 1 },
        value: { type: 'string', id: 2 },
        effect: { type: 'string', id: 3 },
        timeAdded: { type: 'Time', id: 4 },
      },
    },
    NodeSpec: {
      fields: {
        providerID: { type: 'string', id: 3 },
        unschedulable: { type: 'bool', id: 4 },
        taints: { rule: 'repeated', type: 'Taint', id: 5 },
      },
    },
    NodeCondition: {
      fields: {
        type: { type: 'string', id: 1 },
        status: { type: 'string', id: 2 },
        lastHeartbeatTime: { type: 'Time', id: 3 },
        lastTransitionTime: { type: 'Time', id: 4 },
        reason: { type: 'string', id: 5 },
        message: { type: 'string', id: 6 },
      },
    },
    ContainerImage: {
      fields: {
        names: { rule: 'repeated', type: 'string', id: 1 },
        sizeBytes: { type: 'int64', id: 2 },
      },
    },
    NodeSystemInfo: { fields: { kubeletVersion: { type: 'string', id: 7 } } },
    NodeStatus: {
      fields: {
        capacity: { keyType: 'string', type: 'Quantity', id: 1 },
        conditions: { rule: 'repeated', type: 'NodeCondition', id: 4 },
        nodeInfo: { type: 'NodeSystemInfo', id: 7 },
        images: { rule: 'repeated', type: 'ContainerImage', id: 8 },
      },
    },
    Quantity: { fields: { string: { type: 'string', id: 1 } } },
    Node: {
      fields: {
        metadata: { type: 'ObjectMeta', id: 1 },
        spec: { type: 'NodeSpec', id: 2 },
        status: { type: 'NodeStatus', id: 3 },
      },
    },
    NodeList: {
      fields: {
        metadata: { type: 'ListMeta', id: 1 },
        items: { rule: 'repeated', type: 'Node', id: 2 },
      },
    },
    Status: {
      fields: {
        status: { type: 'string', id: 2 },
        message: { type: 'string', id: 3 },
        reason: { type: 'string', id: 4 },
        code: { type: 'int32', id: 6 },
      },
    },
  },
});
const Unknown = root.lookupType('Unknown');
const MAGIC = Buffer.from([0x6b, 0x38, 0x73, 0x00]);

/** `object` as protobufjs encodes it, in the envelope kube-apiserver writes. */
function encoded(type: string, apiVersion: string, kind: string, object: object): Buffer {
  const raw = root.lookupType(type).encode(root.lookupType(type).fromObject(object)).finish();
  const unknown = Unknown.encode(Unknown.fromObject({ typeMeta: { apiVersion, kind }, raw }));
  return Buffer.concat([MAGIC, unknown.finish()]);
}

/** What protobufjs reads in an enveloped body: the envelope, then the object in it. */
function readByProtobufjs(body: Buffer, type: string): Record<string, unknown> {
  assert.deepEqual(body.subarray(0, 4), MAGIC);
  const unknown = Unknown.toObject(Unknown.decode(body.subarray(4))) as {
    typeMeta: { kind: string };
    raw: Uint8Array;
  };
  const message = root.lookupType(type);
  return {
    kind: unknown.typeMeta.kind,
    object: message.toObject(message.decode(unknown.raw), { longs: Number, defaults: true }),
  };
}

/** What protobufjs reads of a Node (the fields compared). */
interface PbNode {
  metadata: {
    name: string;
    labels?: Record<string, string>;
    creationTimestamp: { seconds: number };
    deletionTimestamp?: { seconds: number };
  };
  spec: {
    providerID: string;
    unschedulable: boolean;
    taints?: { key: string; value: string; effect: string }[];
  };
  status: {
    conditions: {
      type: string;
      status: string;
      reason: string;
      message: string;
      lastHeartbeatTime: { seconds: number };
    }[];
    images: { names: string[] }[];
    nodeInfo: { kubeletVersion: string };
  };
}

const seconds = (text: string) => Date.parse(text) / 1000;

/** A cluster with a node of every shape a check tells apart. */
function variedCluster(): SimCluster {
  const cluster = new SimCluster({ seed: 11 });
  cluster.addNodes(12);
  const names = cluster.nodeNames();
  cluster.stopKubelet(names[0] as string);
  cluster.cordon(names[1] as string);
  cluster.addTaint(names[2] as string, { key: 'dedicated', value: 'gpu', effect: 'NoSchedule' });
  cluster.setReady(names[3] as string, 'False', 'KubeletNotReady');
  cluster.markDeleting(names[4] as string);
  cluster.addNode({
    name: 'ünïcode-node',
    labels: { 'topology.kubernetes.io/zone': 'zöne-ü', 'example.com/long': 'v'.repeat(63) },
  });
  return cluster;
}

function nodesOf(cluster: SimCluster): KubeNode[] {
  return cluster.nodeNames().map((name) => cluster.nodeObject(name) as KubeNode);
}

describe('the sim writes Nodes as protobufjs reads the published messages', () => {
  it('every field the check reads, and the images it passes over', () => {
    const nodes = nodesOf(variedCluster());
    const body = nodeListProto(
      { resourceVersion: '42', continue: 'c1', remainingItemCount: 7 },
      nodes,
    );
    const { kind, object } = readByProtobufjs(body, 'NodeList');
    assert.equal(kind, 'NodeList');
    const list = object as { metadata: Record<string, unknown>; items: PbNode[] };
    assert.deepEqual(list.metadata, {
      resourceVersion: '42',
      continue: 'c1',
      remainingItemCount: 7,
    });
    assert.equal(list.items.length, nodes.length);
    nodes.forEach((node, k) => {
      const item = list.items[k] as PbNode;
      assert.equal(item.metadata.name, node.metadata.name);
      assert.deepEqual(item.metadata.labels, node.metadata.labels);
      assert.equal(
        item.metadata.creationTimestamp.seconds,
        seconds(node.metadata.creationTimestamp),
      );
      assert.equal(
        item.metadata.deletionTimestamp?.seconds,
        node.metadata.deletionTimestamp && seconds(node.metadata.deletionTimestamp),
      );
      assert.equal(item.spec.providerID, node.spec.providerID);
      assert.equal(item.spec.unschedulable, node.spec.unschedulable === true);
      assert.deepEqual(
        (item.spec.taints ?? []).map((t) => [t.key, t.value, t.effect]),
        (node.spec.taints ?? []).map((t) => [t.key, t.value ?? '', t.effect]),
      );
      assert.deepEqual(
        item.status.conditions.map((c) => [
          c.type,
          c.status,
          c.reason,
          c.message,
          c.lastHeartbeatTime.seconds,
        ]),
        node.status.conditions.map((c) => [
          c.type,
          c.status,
          c.reason,
          c.message,
          seconds(c.lastHeartbeatTime),
        ]),
      );
      assert.deepEqual(
        item.status.images.map((i) => i.names),
        node.status.images.map((i) => i.names),
      );
      assert.equal(item.status.nodeInfo.kubeletVersion, node.status.nodeInfo.kubeletVersion);
    });
  });

  it('a Status as an error answers in protobuf', () => {
    const { kind, object } = readByProtobufjs(
      statusProto(403, 'Forbidden', 'nodes is forbidden: User "x" cannot list'),
      'Status',
    );
    assert.equal(kind, 'Status');
    assert.deepEqual(object, {
      status: 'Failure',
      message: 'nodes is forbidden: User "x" cannot list',
      reason: 'Forbidden',
      code: 403,
    });
  });
});

describe('a protobuf page reads as the pruned JSON reader reads the same page', () => {
  it('the sim: a node of every shape, with all labels and with some', () => {
    const nodes = nodesOf(variedCluster());
    const meta = { resourceVersion: '9', continue: 'next', remainingItemCount: 3 };
    const json = Buffer.from(
      JSON.stringify({ kind: 'NodeList', apiVersion: 'v1', metadata: meta, items: nodes }),
    );
    const expected = parsePruned(json, NODE_PAGE);
    // Twice: the second time every repeated string comes from the decoder's shared texts.
    for (let k = 0; k < 2; k++) {
      assert.deepEqual(decodeNodeList(nodeListProto(meta, nodes)), expected);
    }
    const keys = new Set(['topology.kubernetes.io/zone', 'example.com/long', 'absent/key']);
    const some = decodeNodeList(nodeListProto(meta, nodes), keys) as {
      items: { metadata: { labels?: Record<string, string> } }[];
    };
    for (const [k, node] of nodes.entries()) {
      const labels = node.metadata.labels ?? {};
      const kept = Object.fromEntries(Object.entries(labels).filter(([key]) => keys.has(key)));
      assert.deepEqual(some.items[k]?.metadata.labels, kept);
    }
    const one = nodes[4] as KubeNode;
    assert.deepEqual(
      decodeNode(nodeProto(one)),
      parsePruned(Buffer.from(JSON.stringify(one)), NODE_OBJECT_FIELDS),
    );
  });

  it('edges protobufjs writes: unknown fields, the zero time, an old and a far time, empty strings', () => {
    const body = encoded('NodeList', 'v1', 'NodeList', {
      metadata: { resourceVersion: '1' },
      items: [
        {
          metadata: {
            name: 'edge',
            creationTimestamp: {},
            deletionTimestamp: { seconds: -1 },
            managedFields: [{ manager: 'kubelet', operation: 'Update' }],
            labels: { a: '', b: 'x'.repeat(200) },
          },
          spec: {
            providerID: '',
            unschedulable: false,
            taints: [{ key: 'k', effect: 'NoExecute', timeAdded: { seconds: 253402300800 } }],
          },
          status: {
            capacity: { cpu: { string: '4' } },
            conditions: [{ type: 'Ready', status: 'Unknown', reason: '', message: 'gone' }],
            images: [{ names: ['registry/a@sha256:00'], sizeBytes: 5 }],
          },
        },
        {},
      ],
    });
    assert.deepEqual(decodeNodeList(body), {
      kind: 'NodeList',
      metadata: { resourceVersion: '1' },
      items: [
        {
          metadata: {
            name: 'edge',
            creationTimestamp: null,
            deletionTimestamp: '1969-12-31T23:59:59Z',
            labels: { a: '', b: 'x'.repeat(200) },
          },
          spec: { taints: [{ key: 'k', effect: 'NoExecute' }] },
          status: { conditions: [{ type: 'Ready', status: 'Unknown', message: 'gone' }] },
        },
        {},
      ],
    });
  });

  it('a Time reads as Go writes it in JSON, to the second, over the years Go can write', () => {
    const at = (seconds: number) =>
      decodeNodeList(
        encoded('NodeList', 'v1', 'NodeList', {
          items: [{ metadata: { creationTimestamp: { seconds, nanos: 999_999_999 } } }],
        }),
      ) as { items: { metadata: { creationTimestamp: unknown } }[] };
    fc.assert(
      fc.property(fc.integer({ min: -62_167_219_200, max: 253_402_300_799 }), (seconds) => {
        const iso = new Date(seconds * 1000).toISOString();
        assert.equal(at(seconds).items[0]?.metadata.creationTimestamp, `${iso.slice(0, 19)}Z`);
      }),
      { numRuns: 500, seed: 3 },
    );
    for (const seconds of [0, -1, 951_782_400, 4_107_542_400, -62_167_219_200, 253_402_300_799]) {
      const iso = new Date(seconds * 1000).toISOString();
      assert.equal(at(seconds).items[0]?.metadata.creationTimestamp, `${iso.slice(0, 19)}Z`);
    }
    assert.equal(at(-62_167_219_201).items[0]?.metadata.creationTimestamp, null);
    assert.equal(at(253_402_300_800).items[0]?.metadata.creationTimestamp, null);
  });

  it('another kind comes back as its kind, a Status with its words', () => {
    assert.deepEqual(decodeNodeList(statusProto(410, 'Expired', 'too old resource version')), {
      kind: 'Status',
      apiVersion: 'v1',
      status: 'Failure',
      message: 'too old resource version',
      reason: 'Expired',
      code: 410,
    });
    assert.deepEqual(decodeOther(nodeProto(nodesOf(variedCluster())[0] as KubeNode)), {
      kind: 'Node',
      apiVersion: 'v1',
    });
  });
});

describe('hostile protobuf is a SyntaxError, and nothing else', () => {
  const page = nodeListProto({ resourceVersion: '3' }, nodesOf(variedCluster()).slice(0, 3));
  const whole = decodeNodeList(page);

  function outcome(bytes: Buffer): 'error' | unknown {
    try {
      return decodeNodeList(bytes);
    } catch (error) {
      assert.ok(error instanceof SyntaxError, `a SyntaxError, got ${error}`);
      return 'error';
    }
  }

  it('every truncation: an error, or (cut after the object) the same page', () => {
    let errors = 0;
    for (let cut = 0; cut < page.length; cut++) {
      const got = outcome(page.subarray(0, cut));
      if (got === 'error') errors++;
      else assert.deepEqual(got, whole, `cut at ${cut} of ${page.length}`);
    }
    assert.ok(errors > page.length - 10, `${errors} of ${page.length} truncations refused`);
  });

  it('one-byte corruptions all through a page: an error or a value, never a throw of another kind', () => {
    fc.assert(
      fc.property(fc.nat(page.length - 1), fc.integer({ min: 0, max: 255 }), (at, byte) => {
        const bytes = Buffer.from(page);
        bytes[at] = byte;
        outcome(bytes);
      }),
      { numRuns: 2_000, seed: 7 },
    );
  });

  it('no envelope, endless varints, lengths past the end, groups, an encoded raw', () => {
    const cases: Record<string, Buffer> = {
      'no magic': Buffer.from('{"kind":"NodeList"}'),
      empty: Buffer.alloc(0),
      'an eleven-byte varint': Buffer.concat([MAGIC, Buffer.from([0x08]), Buffer.alloc(11, 0xff)]),
      'a length of 2 GiB': Buffer.concat([
        MAGIC,
        Buffer.from([0x12, 0xff, 0xff, 0xff, 0xff, 0x07]),
      ]),
      'a group': Buffer.concat([MAGIC, Buffer.from([0x0b, 0x0c])]),
      'a field number 0': Buffer.concat([MAGIC, Buffer.from([0x02, 0x00])]),
      'raw gzip-encoded': Buffer.concat([
        MAGIC,
        Unknown.encode(
          Unknown.fromObject({
            typeMeta: { kind: 'NodeList' },
            raw: Buffer.from([1]),
            contentEncoding: 'gzip',
          }),
        ).finish(),
      ]),
    };
    for (const [what, bytes] of Object.entries(cases)) {
      assert.throws(() => decodeNodeList(bytes), SyntaxError, what);
    }
    // A Node nested in a field it does not belong to is skipped, not followed: no recursion.
    const deep = encoded('NodeList', 'v1', 'NodeList', { items: [{ metadata: { name: 'n' } }] });
    assert.equal((decodeNodeList(deep) as { items: unknown[] }).items.length, 1);
  });

  it('5,000 nested messages in a field it passes over: skipped by one length, not descended into', () => {
    let inner = Buffer.alloc(0);
    for (let k = 0; k < 5_000; k++) {
      inner = Buffer.concat([Buffer.from([0x7a]), varint(inner.length), inner]);
    }
    const status = Buffer.concat([Buffer.from([0x1a]), varint(inner.length), inner]);
    const node = Buffer.concat([Buffer.from([0x12]), varint(status.length), status]);
    const raw = Buffer.concat([Buffer.from([0x0a, 0x0a, 0x12, 0x08]), Buffer.from('NodeList')]);
    const body = Buffer.concat([MAGIC, raw, Buffer.from([0x12]), varint(node.length), node]);
    assert.deepEqual(decodeNodeList(body), {
      kind: 'NodeList',
      metadata: {},
      items: [{ status: {} }],
    });
  });

  it('a page of a million 2-byte items, or one Node of a million taints: a PageValuesError past the cap, not GBs of heap', () => {
    const typeMeta = Buffer.concat([
      Buffer.from([0x0a, 0x0a, 0x12, 0x08]),
      Buffer.from('NodeList'),
    ]);
    const list = (raw: Buffer) =>
      Buffer.concat([MAGIC, typeMeta, Buffer.from([0x12]), varint(raw.length), raw]);
    const field = (tag: number, inner: Buffer) =>
      Buffer.concat([Buffer.from([tag]), varint(inner.length), inner]);
    const items = Buffer.alloc(2 * (MAX_PAGE_VALUES + 1), Buffer.from([0x12, 0x00]));
    const taints = Buffer.alloc(2 * (MAX_PAGE_VALUES + 1), Buffer.from([0x2a, 0x00]));
    for (const body of [list(items), list(field(0x12, field(0x12, taints)))]) {
      assert.ok(body.length < 3 * 1024 * 1024, `${body.length} bytes`);
      assert.throws(() => decodeNodeList(body), PageValuesError);
    }
    // At the cap exactly, the page is read.
    const most = decodeNodeList(list(items.subarray(2))) as { items: unknown[] };
    assert.equal(most.items.length, MAX_PAGE_VALUES);
  });
});

function varint(value: number): Buffer {
  const bytes: number[] = [];
  let v = value;
  while (v >= 0x80) {
    bytes.push((v % 0x80) | 0x80);
    v = Math.floor(v / 0x80);
  }
  bytes.push(v);
  return Buffer.from(bytes);
}

describe('the reader over HTTPS asks for protobuf and takes what the server answers', () => {
  let cluster: SimCluster;
  let sim: SimServer;
  let tiny: TinyApi;

  before(async () => {
    cluster = variedCluster();
    cluster.addNodes(1_100);
    sim = await startSimServer({ cluster, token: 'sim-token' });
    tiny = await startTinyApi();
  });
  after(async () => {
    await sim.close();
    await tiny.close();
  });

  function reader(kubeConfig: KubeConfig, nodesAsJson = false) {
    return new KubeClusterReader({
      kubeConfig,
      cluster: 'c',
      namespace: 'kube-node-lease',
      labelKeys: ['topology.kubernetes.io/zone'],
      nodesAsJson,
    });
  }

  it('the sim answers the Nodes in protobuf, and the snapshot is the one JSON gives', async () => {
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromString(sim.kubeconfig());
    const viaProtobuf = await reader(kubeConfig).read();
    const asked = sim.sent.filter((a) => a.url.startsWith('/api/v1/nodes?'));
    assert.ok(asked.length >= 3, 'the Node list came in pages');
    for (const answer of asked) {
      assert.match(String(answer.accept), /^application\/vnd\.kubernetes\.protobuf,/);
      assert.equal(answer.contentType, PROTOBUF);
    }
    const viaJson = await reader(kubeConfig, true).read();
    assert.equal(viaProtobuf.nodes?.length, cluster.nodeNames().length);
    assert.deepEqual(viaProtobuf.nodes, viaJson.nodes);
    assert.ok(Number(viaProtobuf.stats?.bytes) < Number(viaJson.stats?.bytes) * 0.9, 'fewer bytes');
  });

  it('a node read afresh (a GET) comes in protobuf too, and reads as its JSON', async () => {
    // A cluster of its own: five nodes, none of them a suspect until one is cordoned.
    const small = new SimCluster({ seed: 3 });
    small.addNodes(5);
    const server = await startSimServer({ cluster: small, token: 'sim-token' });
    after(() => server.close());
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromString(server.kubeconfig());
    const withCache = (nodesAsJson: boolean) =>
      new KubeClusterReader({
        kubeConfig,
        cluster: 'c',
        namespace: 'kube-node-lease',
        nodeCache: new NodeCache(3_600_000),
        nodesAsJson,
      });
    const [viaProtobuf, viaJson] = [withCache(false), withCache(true)];
    await viaProtobuf.read();
    await viaJson.read();
    const name = small.nodeNames()[2] as string;
    small.cordon(name);
    server.resetStats();
    const read = await viaProtobuf.read();
    const gets = server.sent.filter((a) => a.url === `/api/v1/nodes/${encodeURIComponent(name)}`);
    assert.equal(gets.length, 1, 'the cordoned node read afresh');
    assert.match(String(gets[0]?.accept), /^application\/vnd\.kubernetes\.protobuf,/);
    assert.equal(gets[0]?.contentType, PROTOBUF);
    const node = read.nodes?.find((n) => n.name === name);
    assert.equal(node?.unschedulable, true);
    assert.deepEqual(
      node,
      (await viaJson.read()).nodes?.find((n) => n.name === name),
    );
  });

  const leasesPage = {
    kind: 'LeaseList',
    apiVersion: 'coordination.k8s.io/v1',
    metadata: {},
    items: [
      {
        metadata: { name: 'json-node' },
        spec: { renewTime: new Date().toISOString(), leaseDurationSeconds: 40 },
      },
    ],
  };

  it('a server that answers JSON to the same Accept is read as JSON', async () => {
    tiny.serve((req, res) => {
      if (req.url?.startsWith(LEASES_PATH)) return sendJson(res, leasesPage);
      sendJson(res, {
        kind: 'NodeList',
        metadata: {},
        items: [
          {
            metadata: { name: 'json-node' },
            status: { conditions: [{ type: 'Ready', status: 'True' }] },
          },
        ],
      });
    });
    const snapshot = await reader(tiny.kubeConfig()).read();
    assert.deepEqual(
      snapshot.nodes?.map((n) => [n.name, n.ready]),
      [['json-node', 'True']],
    );
  });

  function protobufAnswer(status: number, body: Buffer) {
    return (req: { url?: string }, res: import('node:http').ServerResponse) => {
      if (req.url?.startsWith(LEASES_PATH)) return sendJson(res, leasesPage);
      res.writeHead(status, { 'content-type': PROTOBUF });
      res.end(body);
    };
  }

  it('a 403 answered as a protobuf Status: degraded, quoting the server', async () => {
    tiny.serve(protobufAnswer(403, statusProto(403, 'Forbidden', 'nodes is forbidden: no list')));
    const snapshot = await reader(tiny.kubeConfig()).read();
    assert.equal(snapshot.nodes, null);
    assert.match(
      snapshot.degraded ?? '',
      /cannot list nodes \(403 Forbidden\): nodes is forbidden: no list/,
    );
  });

  it('a corrupt protobuf page, and a protobuf Node for a list: one line each, no bytes quoted', async () => {
    const page = nodeListProto({ resourceVersion: '1' }, nodesOf(variedCluster()).slice(0, 2));
    tiny.serve(protobufAnswer(200, page.subarray(0, page.length - 40)));
    await assert.rejects(reader(tiny.kubeConfig()).read(), (error: unknown) => {
      assert.ok(error instanceof ClusterReadError);
      assert.match(
        error.message,
        /is not valid protobuf \(HTTP 200, application\/vnd\.kubernetes\.protobuf\)$/,
      );
      return true;
    });
    tiny.serve(protobufAnswer(200, nodeProto(nodesOf(variedCluster())[0] as KubeNode)));
    await assert.rejects(reader(tiny.kubeConfig()).read(), (error: unknown) => {
      assert.ok(error instanceof ClusterReadError);
      assert.match(error.message, /is not a NodeList \(got a Node\)/);
      assert.doesNotMatch(error.message, /\n/);
      return true;
    });
  });
});
