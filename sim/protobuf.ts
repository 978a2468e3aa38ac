/**
 * Kubernetes' protobuf encoding of what the sim serves as protobuf: a Node, a NodeList page and a
 * Status, each in the envelope kube-apiserver writes (`k8s\0`, then a `runtime.Unknown` whose
 * `raw` is the object). Asked for with `Accept: application/vnd.kubernetes.protobuf` first; other
 * resources are answered in JSON, as a server answers for types it has no protobuf for (a client
 * must take either). Field numbers from kubernetes/api core/v1/generated.proto and
 * kubernetes/apimachinery meta/v1 and runtime generated.proto; every field is written as the
 * generated Go code writes it (a plain string or bool even when empty, a pointer only when set).
 */
import { IMAGES } from './catalogue.js';
import type { KubeNode, ObjectMeta } from './objects.js';

export const PROTOBUF = 'application/vnd.kubernetes.protobuf';
const MAGIC = [0x6b, 0x38, 0x73, 0x00];
const VARINT = 0;
const BYTES = 2;

/** Whether the request asks for protobuf first (its Accept's first media type). */
export function wantsProtobuf(accept: string | undefined): boolean {
  const first = (accept ?? '').split(',')[0] ?? '';
  return first.split(';')[0]?.trim() === PROTOBUF && !/as=Table/.test(first);
}

/** Writes one message into a growing buffer; a nested message's length is patched at its end. */
export class ProtoWriter {
  // Zeroed buffers: the sim shares a test's process, whose spies count the reader's allocUnsafe.
  private buf = Buffer.alloc(16_384);
  private pos = 0;
  private readonly open: number[] = [];

  private room(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    const grown = Buffer.alloc(Math.max(this.buf.length * 2, this.pos + n));
    this.buf.copy(grown, 0, 0, this.pos);
    this.buf = grown;
  }

  /** A varint; a negative number as its 64-bit two's complement (ten bytes). */
  varint(value: number): void {
    this.room(10);
    if (value < 0) {
      let lo = Number(BigInt.asUintN(32, BigInt(value)));
      let hi = Number(BigInt.asUintN(32, BigInt(value) >> 32n));
      for (let k = 0; k < 9; k++) {
        this.buf[this.pos++] = (lo & 0x7f) | 0x80;
        lo = (lo >>> 7) | ((hi & 0x7f) << 25);
        hi >>>= 7;
      }
      this.buf[this.pos++] = lo & 0x01;
      return;
    }
    let v = value;
    while (v >= 0x80) {
      this.buf[this.pos++] = (v % 0x80) | 0x80;
      v = Math.floor(v / 0x80);
    }
    this.buf[this.pos++] = v;
  }

  private tag(field: number, wire: number): void {
    this.varint(field * 8 + wire);
  }

  string(field: number, value: string): void {
    const length = Buffer.byteLength(value);
    this.tag(field, BYTES);
    this.varint(length);
    this.room(length);
    this.pos += this.buf.write(value, this.pos, 'utf8');
  }

  int(field: number, value: number): void {
    this.tag(field, VARINT);
    this.varint(value);
  }

  bool(field: number, value: boolean): void {
    this.int(field, value ? 1 : 0);
  }

  /** Bytes already encoded (fields of the message under way). */
  raw(bytes: Uint8Array): void {
    this.room(bytes.length);
    this.buf.set(bytes, this.pos);
    this.pos += bytes.length;
  }

  /** A nested message starts; `end` closes it. */
  begin(field: number): void {
    this.tag(field, BYTES);
    this.room(1);
    this.open.push(this.pos++);
  }

  end(): void {
    const at = this.open.pop() as number;
    const length = this.pos - at - 1;
    let size = 1;
    for (let v = length; v >= 0x80; v = Math.floor(v / 0x80)) size++;
    if (size > 1) {
      this.room(size - 1);
      this.buf.copyWithin(at + size, at + 1, this.pos);
      this.pos += size - 1;
    }
    const end = this.pos;
    this.pos = at;
    this.varint(length);
    this.pos = end;
  }

  message(field: number, write: () => void): void {
    this.begin(field);
    write();
    this.end();
  }

  /** A `meta/v1.Time` (RFC 3339 text): seconds and nanos. */
  time(field: number, text: string): void {
    const seconds = secondsOf(text);
    this.message(field, () => {
      this.int(1, seconds);
      this.int(2, 0); // meta/v1.Time keeps seconds alone (time_proto.go)
    });
  }

  /** A `map<string, string>`: one entry message per key, in key order (as Go writes them). */
  map(field: number, entries: Readonly<Record<string, string>> | undefined): void {
    for (const key of Object.keys(entries ?? {}).sort()) {
      this.message(field, () => {
        this.string(1, key);
        this.string(2, (entries as Record<string, string>)[key] as string);
      });
    }
  }

  /** A `map<string, resource.Quantity>`: each value a Quantity message { string 1 }. */
  quantities(field: number, entries: Readonly<Record<string, string>>): void {
    for (const key of Object.keys(entries).sort()) {
      this.message(field, () => {
        this.string(1, key);
        this.message(2, () => this.string(1, entries[key] as string));
      });
    }
  }

  /** What was written (the writer is not used after). */
  bytes(): Buffer {
    return this.buf.subarray(0, this.pos);
  }
}

/** The last time text converted, and its seconds: a node's conditions repeat theirs. */
let lastText = '';
let lastSeconds = 0;

/** Seconds since the epoch of the sim's RFC 3339 text (time-format.ts: to the second, UTC). */
function secondsOf(text: string): number {
  if (text !== lastText) {
    lastSeconds = Math.floor(Date.parse(text) / 1000);
    lastText = text;
  }
  return lastSeconds;
}

/** The images every sim node has, encoded once (NodeStatus field 8, repeated). */
const IMAGES_PROTO = (() => {
  const w = new ProtoWriter();
  for (const image of IMAGES) {
    w.message(8, () => {
      for (const name of image.names) w.string(1, name);
      w.int(2, image.sizeBytes);
    });
  }
  return w.bytes();
})();

function objectMeta(w: ProtoWriter, m: ObjectMeta): void {
  w.string(1, m.name);
  w.string(2, '');
  w.string(3, m.namespace ?? '');
  w.string(4, '');
  w.string(5, m.uid);
  w.string(6, m.resourceVersion);
  w.int(7, 0);
  w.time(8, m.creationTimestamp);
  if (m.deletionTimestamp !== undefined) w.time(9, m.deletionTimestamp);
  if (m.deletionGracePeriodSeconds !== undefined) w.int(10, m.deletionGracePeriodSeconds);
  w.map(11, m.labels);
  w.map(12, m.annotations);
  for (const finalizer of m.finalizers ?? []) w.string(14, finalizer);
}

/** An instance type's capacity and allocatable, encoded once (nodes share their objects). */
const encodedQuantities = new WeakMap<object, Map<number, Buffer>>();

function quantitiesOf(field: number, entries: Readonly<Record<string, string>>): Buffer {
  let byField = encodedQuantities.get(entries);
  if (!byField) {
    byField = new Map();
    encodedQuantities.set(entries, byField);
  }
  let bytes = byField.get(field);
  if (!bytes) {
    const w = new ProtoWriter();
    w.quantities(field, entries);
    bytes = w.bytes();
    byField.set(field, bytes);
  }
  return bytes;
}

/** NodeSystemInfo's fields, numbered from 1 in this order. */
const NODE_INFO_FIELDS = [
  'machineID',
  'systemUUID',
  'bootID',
  'kernelVersion',
  'osImage',
  'containerRuntimeVersion',
  'kubeletVersion',
  'kubeProxyVersion',
  'operatingSystem',
  'architecture',
];

/** A Node's fields (core/v1 Node: metadata 1, spec 2, status 3). */
function node(w: ProtoWriter, n: KubeNode): void {
  w.message(1, () => objectMeta(w, n.metadata));
  w.message(2, () => {
    w.string(1, '');
    w.string(2, '');
    w.string(3, n.spec.providerID);
    w.bool(4, n.spec.unschedulable === true);
    for (const taint of n.spec.taints ?? []) {
      w.message(5, () => {
        w.string(1, taint.key);
        w.string(2, taint.value ?? '');
        w.string(3, taint.effect);
      });
    }
  });
  w.message(3, () => {
    const s = n.status;
    w.raw(quantitiesOf(1, s.capacity));
    w.raw(quantitiesOf(2, s.allocatable));
    w.string(3, '');
    for (const c of s.conditions) {
      w.message(4, () => {
        w.string(1, c.type);
        w.string(2, c.status);
        w.time(3, c.lastHeartbeatTime);
        w.time(4, c.lastTransitionTime);
        w.string(5, c.reason);
        w.string(6, c.message);
      });
    }
    for (const a of s.addresses) {
      w.message(5, () => {
        w.string(1, a.type);
        w.string(2, a.address);
      });
    }
    w.message(6, () => w.message(1, () => w.int(1, s.daemonEndpoints.kubeletEndpoint.Port)));
    w.message(7, () => {
      const info = s.nodeInfo;
      for (const [k, name] of NODE_INFO_FIELDS.entries()) w.string(k + 1, info[name] ?? '');
    });
    w.raw(IMAGES_PROTO);
  });
}

/** The envelope: magic, then `runtime.Unknown` { typeMeta 1, raw 2, contentEncoding 3, contentType 4 }. */
function envelope(apiVersion: string, kind: string, write: (w: ProtoWriter) => void): Buffer {
  const w = new ProtoWriter();
  w.raw(Uint8Array.from(MAGIC));
  w.message(1, () => {
    w.string(1, apiVersion);
    w.string(2, kind);
  });
  w.message(2, () => write(w));
  w.string(3, '');
  w.string(4, '');
  return w.bytes();
}

export interface ListMetaFields {
  readonly resourceVersion: string;
  readonly continue?: string | undefined;
  readonly remainingItemCount?: number | undefined;
}

/** A NodeList page (metadata 1, items 2). */
export function nodeListProto(meta: ListMetaFields, items: readonly KubeNode[]): Buffer {
  return envelope('v1', 'NodeList', (w) => {
    w.message(1, () => {
      w.string(1, '');
      w.string(2, meta.resourceVersion);
      w.string(3, meta.continue ?? '');
      if (meta.remainingItemCount !== undefined) w.int(4, meta.remainingItemCount);
    });
    for (const item of items) w.message(2, () => node(w, item));
  });
}

/** One Node. */
export function nodeProto(item: KubeNode): Buffer {
  return envelope('v1', 'Node', (w) => node(w, item));
}

/** A Status (metadata 1, status 2, message 3, reason 4, details 5, code 6). */
export function statusProto(
  code: number,
  reason: string,
  message: string,
  details?: Record<string, unknown>,
): Buffer {
  return envelope('v1', 'Status', (w) => {
    w.message(1, () => {
      w.string(1, '');
      w.string(2, '');
      w.string(3, '');
    });
    w.string(2, 'Failure');
    w.string(3, message);
    w.string(4, reason);
    if (details) {
      w.message(5, () => {
        w.string(1, String(details.name ?? ''));
        w.string(2, String(details.group ?? ''));
        w.string(3, String(details.kind ?? ''));
        if (typeof details.retryAfterSeconds === 'number') w.int(5, details.retryAfterSeconds);
      });
    }
    w.int(6, code);
  });
}
