/**
 * `JSON.parse` of an answer body, straight from its bytes, that builds only the fields asked for:
 * a Node list page is megabytes of JSON of which the check keeps a few hundred bytes per Node
 * (its image list, capacity, nodeInfo and managedFields are most of it). The rest is walked byte
 * by byte and checked as strictly as JSON.parse checks it, but never decoded nor built: no page
 * string, no parse tree to collect.
 *
 * What it returns is exactly what JSON.parse of the decoded body returns, with every field outside
 * the `Keep` tree left out (duplicate keys: the last wins; `\u` escapes, numbers, literals are
 * JSON.parse's own, since each kept value is handed to it). Input JSON.parse rejects is rejected
 * (a `SyntaxError`). Bounded: one pass, no recursion but along the Keep tree (a few levels), so a
 * deeply nested answer costs a stack of one byte per level, never a stack overflow; the values it
 * builds are counted, past the cap a `PageValuesError` (page-values.ts). The walk
 * itself (checking and skipping bytes) is json-walk.ts; this module builds what is kept.
 */

import {
  COLON,
  COMMA,
  JsonWalker,
  LBRACE,
  LBRACKET,
  QUOTE,
  RBRACE,
  RBRACKET,
  ZERO,
} from './json-walk.js';
import { ValueCount } from './page-values.js';

/** What to keep of a value: all of it, some fields of an object, or each element of an array. */
export type Keep = KeepAll | KeepFields | KeepEach;
interface KeepAll {
  readonly all: true;
}
interface KeepFields {
  readonly fields: ReadonlyMap<string, Keep>;
  /** The same names as UTF-8 bytes, matched against a key's bytes without decoding it. */
  readonly names: readonly (readonly [Uint8Array, string, Keep])[];
}
interface KeepEach {
  readonly each: Keep;
}

/** The whole value. */
export const ALL: Keep = Object.freeze({ all: true });

/** These fields of an object (the whole value when it is no object). */
export function keepFields(fields: Readonly<Record<string, Keep>>): Keep {
  const entries = Object.entries(fields);
  return {
    fields: new Map(entries),
    names: entries.map(([name, keep]) => [Buffer.from(name), name, keep] as const),
  };
}

/** Each element of an array, kept as `each` says (the whole value when it is no array). */
export function keepEach(each: Keep): Keep {
  return { each };
}

/** `JSON.parse(body.toString('utf8'))`, keeping only what `keep` asks for. */
export function parsePruned(body: Buffer, keep: Keep): unknown {
  const reader = new PrunedReader(body);
  reader.pos = reader.whitespace(0);
  const value = reader.value(keep);
  if (reader.whitespace(reader.pos) !== body.length) throw reader.fail(reader.pos);
  return value;
}

/**
 * Bodies up to this size are parsed by JSON.parse whole and pruned after (`parseKept`): Node's
 * native parser is several times faster than the walk until the walk's code has been compiled,
 * which a command that reads one small page never reaches, and a tree of 128 KiB costs little.
 */
export const WHOLE_PARSE_BYTES = 128 * 1024;

/** `parsePruned`'s value: from JSON.parse of the whole body when it is small, else by the walk. */
export function parseKept(body: Buffer, keep: Keep): unknown {
  if (body.length > WHOLE_PARSE_BYTES) return parsePruned(body, keep);
  return pruned(JSON.parse(body.toString('utf8')), keep);
}

/** What `parsePruned` returns, from JSON.parse's value of the same body. */
export function pruned(value: unknown, keep: Keep): unknown {
  if ('each' in keep) {
    return Array.isArray(value) ? value.map((item) => pruned(item, keep.each)) : value;
  }
  if (!('fields' in keep) || value === null || typeof value !== 'object' || Array.isArray(value)) {
    return value;
  }
  const object: Record<string, unknown> = {};
  for (const [name, field] of Object.entries(value)) {
    const kept = keep.fields.get(name);
    // Only the Keep tree's own names are assigned: never `__proto__` or the like.
    if (kept !== undefined) object[name] = pruned(field, kept);
  }
  return object;
}

/** The walk that builds, along the way, the values `keep` asks for. */
class PrunedReader extends JsonWalker {
  /** What the walk built, bounded (page-values.ts): a page of `{}` items is no cheap answer. */
  private readonly built = new ValueCount();

  /** The value at `pos` (no whitespace before it), as kept; `pos` moves past it. */
  value(keep: Keep): unknown {
    const c = this.bytes[this.pos];
    if ('fields' in keep && c === LBRACE) return this.object(keep);
    if ('each' in keep && c === LBRACKET) return this.array(keep.each);
    const start = this.pos;
    this.pos = this.skip(start);
    return this.decode(start, this.pos);
  }

  private object(keep: KeepFields): Record<string, unknown> {
    const b = this.bytes;
    const object: Record<string, unknown> = {};
    let i = this.whitespace(this.pos + 1);
    if (b[i] === RBRACE) {
      this.pos = i + 1;
      return object;
    }
    for (;;) {
      if (b[i] !== QUOTE) throw this.fail(i);
      const keyStart = i;
      i = this.string(i);
      let name: string | undefined;
      let field: Keep | undefined;
      if (this.escaped) {
        name = JSON.parse(b.toString('utf8', keyStart, i)) as string;
        field = keep.fields.get(name);
      } else {
        const names = keep.names;
        for (let k = 0; k < names.length; k++) {
          const [bytes, known, kept] = names[k] as (typeof names)[number];
          if (this.equals(keyStart + 1, i - 1, bytes)) {
            name = known;
            field = kept;
            break;
          }
        }
      }
      i = this.whitespace(i);
      if (b[i] !== COLON) throw this.fail(i);
      i = this.whitespace(i + 1);
      if (field === undefined || name === undefined) {
        i = this.skip(i);
      } else {
        this.pos = i;
        // Only the Keep tree's own names are assigned: never `__proto__` or the like.
        object[name] = this.value(field);
        i = this.pos;
      }
      i = this.whitespace(i);
      if (b[i] === COMMA) {
        i = this.whitespace(i + 1);
        continue;
      }
      if (b[i] !== RBRACE) throw this.fail(i);
      this.pos = i + 1;
      return object;
    }
  }

  private array(each: Keep): unknown[] {
    const b = this.bytes;
    const array: unknown[] = [];
    let i = this.whitespace(this.pos + 1);
    if (b[i] === RBRACKET) {
      this.pos = i + 1;
      return array;
    }
    for (;;) {
      this.pos = i;
      this.built.add(1);
      array.push(this.value(each));
      i = this.whitespace(this.pos);
      if (b[i] === COMMA) {
        i = this.whitespace(i + 1);
        continue;
      }
      if (b[i] !== RBRACKET) throw this.fail(i);
      this.pos = i + 1;
      return array;
    }
  }

  /** Whether the bytes `start`–`end` are `name`'s. */
  private equals(start: number, end: number, name: Uint8Array): boolean {
    if (end - start !== name.length) return false;
    const b = this.bytes;
    for (let k = 0; k < name.length; k++) if (b[start + k] !== name[k]) return false;
    return true;
  }

  /** The (already checked) JSON value spanning `start`–`end`. */
  private decode(start: number, end: number): unknown {
    const b = this.bytes;
    if (b[start] === QUOTE && !this.escaped) return b.toString('utf8', start + 1, end - 1);
    if (b[start] === LBRACE || b[start] === LBRACKET) this.built.add(containers(b, start, end));
    return this.count(start, end) ?? JSON.parse(b.toString('utf8', start, end));
  }

  /**
   * The (already checked) number at `start`–`end` when it is digits alone, short enough to be
   * exact (a lease's duration): JSON.parse's value without a string and a parse per lease.
   */
  private count(start: number, end: number): number | undefined {
    if (end - start > 15) return undefined;
    const b = this.bytes;
    let value = 0;
    for (let i = start; i < end; i++) {
      const digit = (b[i] as number) - ZERO;
      if (digit < 0 || digit > 9) return undefined;
      value = value * 10 + digit;
    }
    return value;
  }
}

/**
 * At least as many as the values JSON.parse builds of the (checked) object or array at
 * `start`–`end`: its opening brackets and its commas (a comma inside a string counts too).
 */
function containers(b: Buffer, start: number, end: number): number {
  let count = 0;
  for (let i = start; i < end; i++) {
    const c = b[i];
    if (c === COMMA || c === LBRACE || c === LBRACKET) count++;
  }
  return count;
}
