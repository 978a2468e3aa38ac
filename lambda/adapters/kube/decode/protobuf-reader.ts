/**
 * Protobuf's wire format, read: varints, tags, length-delimited fields checked against what holds
 * them, fields skipped by their wire type, strings (those that repeat from message to message
 * decoded once), and apimachinery's `meta/v1.Time` as its JSON is written. What the messages mean
 * is node-protobuf.ts's business. Malformed input is a `SyntaxError`.
 */

import { ValueCount } from './page-values.js';

export const VARINT = 0;
const FIXED64 = 1;
export const LENGTH = 2;
const FIXED32 = 5;
/**
 * `time.Time{}`'s Unix seconds. apimachinery writes the zero Time as an empty message
 * (time_proto.go); its seconds, should a server write them, mean the same: JSON's null.
 */
const GO_ZERO_SECONDS = -62_135_596_800;

export function malformed(what: string): SyntaxError {
  return new SyntaxError(`malformed protobuf: ${what}`);
}

/** A walk over one body: `pos` in `buf`, within the message that ends at `end`. */
export class Reader {
  pos = 0;
  /** What the walk built (an item, a label, a taint…), bounded (page-values.ts). */
  readonly built = new ValueCount();

  constructor(readonly buf: Buffer) {}

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
      case FIXED32: {
        const bytes = (tag & 7) === FIXED64 ? 8 : 4;
        if (bytes > end - this.pos) throw malformed('a field runs past its message');
        this.pos += bytes;
        return;
      }
      default:
        throw malformed(`wire type ${tag & 7}`);
    }
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
export function sharedText(b: Buffer, start: number, end: number): string {
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
const scratch = Buffer.alloc(24);

/**
 * Seconds since the epoch as Go writes a Time in JSON (`2006-01-02T15:04:05Z`); else null. Date's
 * ISO text less its milliseconds: ~1 µs a time where calendar arithmetic by hand took ~0.4 µs,
 * one time (creationTimestamp) a Node: ~0.06 s more on a relist of 100,000 Nodes (~2 % of its CPU).
 */
function rfc3339(seconds: number): string | null {
  if (!(seconds >= FIRST_SECOND && seconds <= LAST_SECOND)) return null;
  scratch.write(new Date(seconds * 1000).toISOString(), 'latin1');
  scratch[19] = 0x5a;
  return scratch.toString('latin1', 0, 20);
}
