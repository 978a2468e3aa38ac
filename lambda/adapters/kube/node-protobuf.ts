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
 * Bounded and strict: every length is checked against what holds it, a varint has at most ten
 * bytes, nesting follows the known messages only (a few levels), an unknown field is skipped by
 * its wire type, and anything else (a group, a truncated field, a body without the magic) is a
 * `SyntaxError`, which the transport reports as an answer it cannot read.
 */

export const PROTOBUF = 'application/vnd.kubernetes.protobuf';

/** Whether a Content-Type is Kubernetes' protobuf (parameters aside). */
export function isProtobuf(contentType: string | undefined): boolean {
  return contentType?.split(';')[0]?.trim().toLowerCase() === PROTOBUF;
}

const MAGIC = [0x6b, 0x38, 0x73, 0x00];
const VARINT = 0;
const FIXED64 = 1;
const LENGTH = 2;
const FIXED32 = 5;
/**
 * `time.Time{}`'s Unix seconds. apimachinery writes the zero Time as an empty message
 * (time_proto.go); its seconds, should a server write them, mean the same: JSON's null.
 */
const GO_ZERO_SECONDS = -62_135_596_800;

function malformed(what: string): SyntaxError {
  return new SyntaxError(`malformed protobuf: ${what}`);
}

/** A walk over one body: `pos` in `buf`, within the message that ends at `end`. */
class Reader {
  pos: number;

  constructor(
    readonly buf: Buffer,
    pos: number,
  ) {
    this.pos = pos;
  }

  /** A varint, as a signed 64-bit integer (exact up to 2^53); `end` bounds it. */
  varint(end: number): number {
    const b = this.buf;
    let pos = this.pos;
    if (pos < end) {
      const first = b[pos] as number;
      if (first < 0x80) {
        this.pos = pos + 1;
        return first;
      }
    }
    let lo = 0;
    let hi = 0;
    for (let k = 0; k < 10; k++) {
      if (pos >= end) throw malformed('a varint runs past its field');
      const byte = b[pos++] as number;
      const bits = byte & 0x7f;
      if (k < 4) lo |= bits << (7 * k);
      else if (k === 4) {
        lo |= bits << 28;
        hi = bits >>> 4;
      } else hi |= bits << (7 * k - 32);
      if (byte < 0x80) {
        this.pos = pos;
        return (hi | 0) * 0x1_0000_0000 + (lo >>> 0);
      }
    }
    throw malformed('a varint longer than ten bytes');
  }

  /** A length-delimited field's end, checked against `end`; `pos` is at its first byte. */
  field(end: number): number {
    const length = this.varint(end);
    if (length < 0 || length > end - this.pos) throw malformed('a field runs past its message');
    return this.pos + length;
  }

  string(end: number): string {
    const stop = this.field(end);
    const text = utf8(this.buf, this.pos, stop);
    this.pos = stop;
    return text;
  }

  /** The field's tag (`number << 3 | wire type`), or -1 at `end`. */
  tag(end: number): number {
    if (this.pos >= end) return -1;
    const tag = this.varint(end);
    if (tag < 8 || tag > 0xffff_ffff) throw malformed(`a field tag of ${tag}`);
    return tag;
  }

  /** Past a field the check does not read: its bytes, by its wire type. */
  skip(tag: number, end: number): void {
    switch (tag & 7) {
      case VARINT:
        this.varint(end);
        return;
      case LENGTH:
        this.pos = this.field(end);
        return;
      case FIXED64:
        this.advance(8, end);
        return;
      case FIXED32:
        this.advance(4, end);
        return;
      default:
        throw malformed(`wire type ${tag & 7}`);
    }
  }

  private advance(bytes: number, end: number): void {
    if (bytes > end - this.pos) throw malformed('a field runs past its message');
    this.pos += bytes;
  }

  /** A string that repeats from node to node (a zone, a condition's reason): see `sharedText`. */
  sharedString(end: number): string {
    const stop = this.field(end);
    const text = sharedText(this.buf, this.pos, stop);
    this.pos = stop;
    return text;
  }

  /**
   * A `meta/v1.Time` as its JSON is written (RFC 3339, seconds): null for the zero time, an empty
   * message (time_proto.go); seconds left out are 0, as Go reads them.
   */
  time(end: number): string | null {
    const stop = this.field(end);
    if (stop === this.pos) return null;
    let seconds = 0;
    for (let tag = this.tag(stop); tag !== -1; tag = this.tag(stop)) {
      if (tag === ((1 << 3) | VARINT)) seconds = this.varint(stop);
      else this.skip(tag, stop);
    }
    return seconds === GO_ZERO_SECONDS ? null : rfc3339(seconds);
  }
}

/**
 * The bytes as UTF-8 text. `utf8Slice` is what `toString('utf8', …)` calls after checking its
 * arguments (checked here already), and a third of a relist's decoding went to those checks.
 */
const utf8: (b: Buffer, start: number, end: number) => string =
  typeof (Buffer.prototype as { utf8Slice?: unknown }).utf8Slice === 'function'
    ? (b, start, end) =>
        (b as unknown as { utf8Slice(s: number, e: number): string }).utf8Slice(start, end)
    : (b, start, end) => b.toString('utf8', start, end);

/** Strings `sharedText` remembers: their slots, the longest, and their bytes and texts. */
const SLOTS = 4096;
const MAX_SHARED = 64;
const slotBytes = new Uint8Array(SLOTS * MAX_SHARED);
const slotLength = new Int32Array(SLOTS).fill(-1);
const slotText: string[] = new Array<string>(SLOTS).fill('');

/**
 * The text of bytes that most nodes repeat (a label's key and value, a condition's type, status,
 * reason and message): the one string decoded for them last time, found by a hash of the bytes,
 * instead of a new one per node (3 million a relist at 100,000 nodes). Bounded: a few thousand
 * slots of at most 64 bytes each; a string that differs on every node just takes a slot over.
 */
function sharedText(b: Buffer, start: number, end: number): string {
  const length = end - start;
  if (length > MAX_SHARED) return utf8(b, start, end);
  let hash = 0x811c9dc5 ^ length;
  for (let i = start; i < end; i++) hash = Math.imul(hash ^ (b[i] as number), 0x01000193);
  const slot = (hash >>> 0) & (SLOTS - 1);
  const at = slot * MAX_SHARED;
  if (slotLength[slot] === length) {
    let i = 0;
    while (i < length && slotBytes[at + i] === b[start + i]) i++;
    if (i === length) return slotText[slot] as string;
  }
  const text = utf8(b, start, end);
  slotBytes.set(b.subarray(start, end), at);
  slotLength[slot] = length;
  slotText[slot] = text;
  return text;
}

/** `0000-01-01T00:00:00Z` and `9999-12-31T23:59:59Z`: the years Go writes a Time in JSON. */
const FIRST_SECOND = -62_167_219_200;
const LAST_SECOND = 253_402_300_799;
/** Where a time's text is written before it becomes one flat string (not a slice of another). */
const scratch = Buffer.alloc(20);

/** Seconds since the epoch as Go writes a Time in JSON (`2006-01-02T15:04:05Z`); else null. */
function rfc3339(seconds: number): string | null {
  if (!(seconds >= FIRST_SECOND && seconds <= LAST_SECOND)) return null;
  const days = Math.floor(seconds / 86_400);
  let rest = seconds - days * 86_400;
  // Howard Hinnant's days-to-civil, on the proleptic Gregorian calendar.
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const doe = z - era * 146_097;
  const yoe = Math.floor(
    (doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365,
  );
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  const year = yoe + era * 400 + (month <= 2 ? 1 : 0);
  const hour = Math.floor(rest / 3600);
  rest -= hour * 3600;
  const minute = Math.floor(rest / 60);
  digits(year, 0, 4);
  scratch[4] = 0x2d;
  digits(month, 5, 2);
  scratch[7] = 0x2d;
  digits(day, 8, 2);
  scratch[10] = 0x54;
  digits(hour, 11, 2);
  scratch[13] = 0x3a;
  digits(minute, 14, 2);
  scratch[16] = 0x3a;
  digits(rest - minute * 60, 17, 2);
  scratch[19] = 0x5a;
  return scratch.toString('latin1', 0, 20);
}

function digits(value: number, at: number, width: number): void {
  let v = value;
  for (let k = at + width - 1; k >= at; k--) {
    scratch[k] = 0x30 + (v % 10);
    v = Math.floor(v / 10);
  }
}

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
  const r = new Reader(body, 0);
  const env = envelope(r);
  if (env.kind !== 'NodeList') return other(r, env);
  const keys = labelKeys && [...labelKeys].map((key) => Buffer.from(key));
  const items: unknown[] = [];
  let metadata: Record<string, unknown> = {};
  const end = env.end;
  r.pos = env.start;
  for (let tag = r.tag(end); tag !== -1; tag = r.tag(end)) {
    if (tag === ((2 << 3) | LENGTH)) items.push(node(r, r.field(end), keys));
    else if (tag === ((1 << 3) | LENGTH)) metadata = listMeta(r, r.field(end));
    else r.skip(tag, end);
  }
  return { kind: env.kind, metadata, items };
}

/** One Node (a GET), as the pruned JSON reader keeps it with NODE_OBJECT_FIELDS. */
export function decodeNode(body: Buffer, labelKeys?: ReadonlySet<string>): unknown {
  const r = new Reader(body, 0);
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
  const r = new Reader(body, 0);
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
    if (tag === ((2 << 3) | LENGTH)) setString(meta, 'resourceVersion', r.string(end));
    else if (tag === ((3 << 3) | LENGTH)) setString(meta, 'continue', r.string(end));
    else if (tag === ((4 << 3) | VARINT)) meta.remainingItemCount = r.varint(end);
    else r.skip(tag, end);
  }
  return meta;
}

/** A string JSON writes with `omitempty`: left out when empty. */
function setString(object: Record<string, unknown>, name: string, value: string): void {
  if (value !== '') object[name] = value;
  else delete object[name];
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
    if (tag === ((1 << 3) | LENGTH)) setString(meta, 'name', r.string(end));
    else if (tag === ((8 << 3) | LENGTH)) meta.creationTimestamp = r.time(end);
    else if (tag === ((9 << 3) | LENGTH)) {
      const time = r.time(end);
      if (time === null) delete meta.deletionTimestamp;
      else meta.deletionTimestamp = time;
    } else if (tag === ((11 << 3) | LENGTH)) {
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
  if (wanted && key !== undefined && key !== '__proto__') labels[key] = value;
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
  let taints: Record<string, unknown>[] | undefined;
  for (let tag = r.tag(end); tag !== -1; tag = r.tag(end)) {
    if (tag === ((3 << 3) | LENGTH)) setString(spec, 'providerID', r.string(end));
    else if (tag === ((4 << 3) | VARINT)) {
      if (r.varint(end) !== 0) spec.unschedulable = true;
      else delete spec.unschedulable;
    } else if (tag === ((5 << 3) | LENGTH)) {
      taints ??= [];
      taints.push(taint(r, r.field(end)));
    } else r.skip(tag, end);
  }
  if (taints !== undefined) spec.taints = taints;
  return spec;
}

/** Taint { key 1, value 2, effect 3, timeAdded 4 }: key and effect always, as JSON writes them. */
function taint(r: Reader, end: number): Record<string, unknown> {
  const object: Record<string, unknown> = { key: '', effect: '' };
  for (let tag = r.tag(end); tag !== -1; tag = r.tag(end)) {
    if (tag === ((1 << 3) | LENGTH)) object.key = r.sharedString(end);
    else if (tag === ((2 << 3) | LENGTH)) setString(object, 'value', r.sharedString(end));
    else if (tag === ((3 << 3) | LENGTH)) object.effect = r.sharedString(end);
    else if (tag === ((4 << 3) | LENGTH)) {
      const time = r.time(end);
      if (time === null) delete object.timeAdded;
      else object.timeAdded = time;
    } else r.skip(tag, end);
  }
  return object;
}

/** NodeStatus: conditions 4; the rest (images 8, nodeInfo 7, capacity 1…) passed over whole. */
function nodeStatus(r: Reader, end: number): Record<string, unknown> {
  const status: Record<string, unknown> = {};
  let conditions: Record<string, unknown>[] | undefined;
  for (let tag = r.tag(end); tag !== -1; tag = r.tag(end)) {
    if (tag === ((4 << 3) | LENGTH)) {
      conditions ??= [];
      conditions.push(condition(r, r.field(end)));
    } else r.skip(tag, end);
  }
  if (conditions !== undefined) status.conditions = conditions;
  return status;
}

/** NodeCondition { type 1, status 2, reason 5, message 6 }: type and status always. */
function condition(r: Reader, end: number): Record<string, unknown> {
  const object: Record<string, unknown> = { type: '', status: '' };
  for (let tag = r.tag(end); tag !== -1; tag = r.tag(end)) {
    if (tag === ((1 << 3) | LENGTH)) object.type = r.sharedString(end);
    else if (tag === ((2 << 3) | LENGTH)) object.status = r.sharedString(end);
    else if (tag === ((5 << 3) | LENGTH)) setString(object, 'reason', r.sharedString(end));
    else if (tag === ((6 << 3) | LENGTH)) setString(object, 'message', r.sharedString(end));
    else r.skip(tag, end);
  }
  return object;
}
