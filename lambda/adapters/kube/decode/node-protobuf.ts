/**
 * A NodeList page, a Node or a Status in Kubernetes' protobuf encoding
 * (`application/vnd.kubernetes.protobuf`, which kube-apiserver serves for its own types), read
 * into exactly what the pruned JSON reader keeps of the same answer (pruned-json.ts with
 * LIST_FIELDS.nodes): the projection that follows cannot tell the two apart. Protobuf is why: a
 * field the check does not read (a Node's images, about half its bytes, its capacity, nodeInfo,
 * managedFields) is passed over by its length prefix, never walked byte by byte as JSON must be.
 *
 * The layout: the magic `k8s\0`, then a `runtime.Unknown` { typeMeta 1 { apiVersion 1, kind 2 },
 * raw 2, contentEncoding 3, contentType 4 } whose `raw` is the object (runtime/serializer/protobuf).
 * Field numbers from kubernetes/api core/v1/generated.proto and kubernetes/apimachinery
 * meta/v1/generated.proto; test/node-protobuf.test.ts writes and reads the same messages with
 * protobufjs, an implementation of its own, and compares this reader with the JSON reader on the
 * same nodes.
 *
 * Bounded and strict: every length is checked against what holds it (protobuf-reader.ts), nesting
 * follows the known messages only (a few levels), an unknown field is skipped by its wire type,
 * and anything else (a group, a truncated field, a body without the magic) is a `SyntaxError`,
 * which the transport reports as an answer it cannot read. What it builds is counted: more items,
 * labels, taints and conditions than a page may hold is a `PageValuesError` (page-values.ts).
 */

import { LENGTH, malformed, Reader, sharedText, VARINT } from './protobuf-reader.js';

export const PROTOBUF = 'application/vnd.kubernetes.protobuf';

/** The Accept of a Node read: protobuf, else JSON, as client-go asks for built-in types. */
export const PROTOBUF_FIRST = `${PROTOBUF},application/json`;

/** Whether a Content-Type is Kubernetes' protobuf (parameters aside). */
export function isProtobuf(contentType: string | undefined): boolean {
  return contentType?.split(';')[0]?.trim().toLowerCase() === PROTOBUF;
}

const MAGIC = [0x6b, 0x38, 0x73, 0x00];

/** The object in the envelope: its kind and apiVersion, and where its bytes are. */
interface Envelope {
  readonly kind: string;
  readonly apiVersion: string;
  readonly start: number;
  readonly end: number;
}

function envelope(r: Reader): Envelope {
  const b = r.buf;
  for (let k = 0; k < MAGIC.length; k++) {
    if (b[k] !== MAGIC[k]) throw malformed('no k8s protobuf envelope');
  }
  r.pos = MAGIC.length;
  const end = b.length;
  let kind = '';
  let apiVersion = '';
  let start = 0;
  let stop = 0;
  let encoding = '';
  for (let tag = r.tag(end); tag !== -1; tag = r.tag(end)) {
    if (tag === ((1 << 3) | LENGTH)) {
      const typeEnd = r.field(end);
      for (let t = r.tag(typeEnd); t !== -1; t = r.tag(typeEnd)) {
        if (t === ((1 << 3) | LENGTH)) apiVersion = r.string(typeEnd);
        else if (t === ((2 << 3) | LENGTH)) kind = r.string(typeEnd);
        else r.skip(t, typeEnd);
      }
    } else if (tag === ((2 << 3) | LENGTH)) {
      stop = r.field(end);
      start = r.pos;
      r.pos = stop;
    } else if (tag === ((3 << 3) | LENGTH)) {
      encoding = r.string(end);
    } else {
      r.skip(tag, end);
    }
  }
  // A body cut short after its kind must not read as an empty list.
  if (stop === 0) throw malformed('an envelope without its object');
  if (encoding !== '') throw malformed(`content encoding "${encoding.slice(0, 40)}"`);
  return { kind, apiVersion, start, end: stop };
}

/** Which labels a Node keeps: these keys (as UTF-8 bytes), or all of them. */
type LabelKeys = readonly Buffer[] | undefined;

/**
 * A NodeList page as the pruned JSON reader keeps it: `{ kind, metadata, items }`, each item
 * `{ metadata, spec, status }` with the fields NODE_FIELDS names. Another kind comes back as
 * `{ kind, apiVersion }` (and a Status's fields), for the caller to refuse. With `labelKeys`, a
 * Node keeps only those labels (the projection keeps no others).
 */
export function decodeNodeList(body: Buffer, labelKeys?: ReadonlySet<string>): unknown {
  const r = new Reader(body);
  const env = envelope(r);
  if (env.kind !== 'NodeList') return other(r, env);
  const keys = labelKeys && [...labelKeys].map((key) => Buffer.from(key));
  const items: unknown[] = [];
  let metadata: Record<string, unknown> = {};
  const end = env.end;
  r.pos = env.start;
  for (let tag = r.tag(end); tag !== -1; tag = r.tag(end)) {
    if (tag === ((2 << 3) | LENGTH)) {
      r.built.add(1);
      items.push(node(r, r.field(end), keys));
    } else if (tag === ((1 << 3) | LENGTH)) metadata = listMeta(r, r.field(end));
    else r.skip(tag, end);
  }
  return { kind: env.kind, metadata, items };
}

/** One Node (a GET), as the pruned JSON reader keeps it with NODE_OBJECT_FIELDS. */
export function decodeNode(body: Buffer, labelKeys?: ReadonlySet<string>): unknown {
  const r = new Reader(body);
  const env = envelope(r);
  if (env.kind !== 'Node') return other(r, env);
  const keys = labelKeys && [...labelKeys].map((key) => Buffer.from(key));
  r.pos = env.start;
  return { kind: env.kind, ...node(r, env.end, keys) };
}

/**
 * What an answer of another kind is, as JSON would show it: its kind and apiVersion, and a
 * Status's status, message, reason and code (an error's answer; `statusError` quotes them).
 */
export function decodeOther(body: Buffer): Record<string, unknown> {
  const r = new Reader(body);
  return other(r, envelope(r));
}

function other(r: Reader, env: Envelope): Record<string, unknown> {
  const object: Record<string, unknown> = { kind: env.kind, apiVersion: env.apiVersion };
  if (env.kind !== 'Status') return object;
  r.pos = env.start;
  const end = env.end;
  for (let tag = r.tag(end); tag !== -1; tag = r.tag(end)) {
    const field = tag >>> 3;
    if ((tag & 7) === LENGTH && field >= 2 && field <= 4) {
      object[STATUS_STRINGS[field - 2] as string] = r.string(end);
    } else if (tag === ((6 << 3) | VARINT)) {
      object.code = r.varint(end);
    } else {
      r.skip(tag, end);
    }
  }
  return object;
}

const STATUS_STRINGS = ['status', 'message', 'reason'];

/** ListMeta { selfLink 1, resourceVersion 2, continue 3, remainingItemCount 4 }, omitempty. */
function listMeta(r: Reader, end: number): Record<string, unknown> {
  const meta: Record<string, unknown> = {};
  for (let tag = r.tag(end); tag !== -1; tag = r.tag(end)) {
    if (tag === ((2 << 3) | LENGTH)) setField(meta, 'resourceVersion', r.string(end));
    else if (tag === ((3 << 3) | LENGTH)) setField(meta, 'continue', r.string(end));
    else if (tag === ((4 << 3) | VARINT)) meta.remainingItemCount = r.varint(end);
    else r.skip(tag, end);
  }
  return meta;
}

/** A field JSON writes with `omitempty`: left out when empty ('', false, a zero time's null). */
function setField(object: Record<string, unknown>, name: string, value: unknown): void {
  if (value !== '' && value !== false && value !== null) object[name] = value;
  else delete object[name];
}

/** One more element of a repeated field, counted: its array is made at the first. */
function append(r: Reader, object: Record<string, unknown>, name: string, value: unknown): void {
  r.built.add(1);
  const list = object[name] as unknown[] | undefined;
  if (list === undefined) object[name] = [value];
  else list.push(value);
}

/** Node { metadata 1, spec 2, status 3 }. */
function node(r: Reader, end: number, keys: LabelKeys): Record<string, unknown> {
  const item: Record<string, unknown> = {};
  for (let tag = r.tag(end); tag !== -1; tag = r.tag(end)) {
    if (tag === ((1 << 3) | LENGTH)) item.metadata = objectMeta(r, r.field(end), keys);
    else if (tag === ((2 << 3) | LENGTH)) item.spec = nodeSpec(r, r.field(end));
    else if (tag === ((3 << 3) | LENGTH)) item.status = nodeStatus(r, r.field(end));
    else r.skip(tag, end);
  }
  return item;
}

/** ObjectMeta: name 1, creationTimestamp 8, deletionTimestamp 9, labels 11. */
function objectMeta(r: Reader, end: number, keys: LabelKeys): Record<string, unknown> {
  const meta: Record<string, unknown> = {};
  let labels: Record<string, string> | undefined;
  for (let tag = r.tag(end); tag !== -1; tag = r.tag(end)) {
    if (tag === ((1 << 3) | LENGTH)) setField(meta, 'name', r.string(end));
    else if (tag === ((8 << 3) | LENGTH)) meta.creationTimestamp = r.time(end);
    else if (tag === ((9 << 3) | LENGTH)) setField(meta, 'deletionTimestamp', r.time(end));
    else if (tag === ((11 << 3) | LENGTH)) {
      labels ??= {};
      label(r, r.field(end), keys, labels);
    } else r.skip(tag, end);
  }
  if (labels !== undefined) meta.labels = labels;
  return meta;
}

/** One map entry { key 1, value 2 }, kept when its key is one of `keys` (or all are kept). */
function label(r: Reader, end: number, keys: LabelKeys, labels: Record<string, string>): void {
  let key: string | undefined;
  let value = '';
  let wanted = keys === undefined;
  for (let tag = r.tag(end); tag !== -1; tag = r.tag(end)) {
    if (tag === ((1 << 3) | LENGTH)) {
      const stop = r.field(end);
      if (!wanted) wanted = keyIsOneOf(r.buf, r.pos, stop, keys as readonly Buffer[]);
      key = wanted ? sharedText(r.buf, r.pos, stop) : undefined;
      r.pos = stop;
    } else if (tag === ((2 << 3) | LENGTH)) {
      if (wanted) value = r.sharedString(end);
      else r.pos = r.field(end);
    } else r.skip(tag, end);
  }
  if (wanted && key !== undefined && key !== '__proto__') {
    r.built.add(1);
    labels[key] = value;
  }
}

function keyIsOneOf(b: Buffer, start: number, end: number, keys: readonly Buffer[]): boolean {
  const length = end - start;
  for (let k = 0; k < keys.length; k++) {
    const key = keys[k] as Buffer;
    if (key.length !== length) continue;
    let k2 = 0;
    while (k2 < length && key[k2] === b[start + k2]) k2++;
    if (k2 === length) return true;
  }
  return false;
}

/** NodeSpec: providerID 3, unschedulable 4, taints 5. */
function nodeSpec(r: Reader, end: number): Record<string, unknown> {
  const spec: Record<string, unknown> = {};
  for (let tag = r.tag(end); tag !== -1; tag = r.tag(end)) {
    if (tag === ((3 << 3) | LENGTH)) setField(spec, 'providerID', r.string(end));
    else if (tag === ((4 << 3) | VARINT)) setField(spec, 'unschedulable', r.varint(end) !== 0);
    else if (tag === ((5 << 3) | LENGTH)) append(r, spec, 'taints', taint(r, r.field(end)));
    else r.skip(tag, end);
  }
  return spec;
}

/** Taint { key 1, value 2, effect 3, timeAdded 4 }: key and effect always, as JSON writes them. */
function taint(r: Reader, end: number): Record<string, unknown> {
  const object: Record<string, unknown> = { key: '', effect: '' };
  for (let tag = r.tag(end); tag !== -1; tag = r.tag(end)) {
    if (tag === ((1 << 3) | LENGTH)) object.key = r.sharedString(end);
    else if (tag === ((2 << 3) | LENGTH)) setField(object, 'value', r.sharedString(end));
    else if (tag === ((3 << 3) | LENGTH)) object.effect = r.sharedString(end);
    else if (tag === ((4 << 3) | LENGTH)) setField(object, 'timeAdded', r.time(end));
    else r.skip(tag, end);
  }
  return object;
}

/** NodeStatus: conditions 4; the rest (images 8, nodeInfo 7, capacity 1…) passed over whole. */
function nodeStatus(r: Reader, end: number): Record<string, unknown> {
  const status: Record<string, unknown> = {};
  for (let tag = r.tag(end); tag !== -1; tag = r.tag(end)) {
    if (tag === ((4 << 3) | LENGTH)) append(r, status, 'conditions', condition(r, r.field(end)));
    else r.skip(tag, end);
  }
  return status;
}

/** NodeCondition { type 1, status 2, reason 5, message 6 }: type and status always. */
function condition(r: Reader, end: number): Record<string, unknown> {
  const object: Record<string, unknown> = { type: '', status: '' };
  for (let tag = r.tag(end); tag !== -1; tag = r.tag(end)) {
    if (tag === ((1 << 3) | LENGTH)) object.type = r.sharedString(end);
    else if (tag === ((2 << 3) | LENGTH)) object.status = r.sharedString(end);
    else if (tag === ((5 << 3) | LENGTH)) setField(object, 'reason', r.sharedString(end));
    else if (tag === ((6 << 3) | LENGTH)) setField(object, 'message', r.sharedString(end));
    else r.skip(tag, end);
  }
  return object;
}
