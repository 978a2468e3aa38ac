/**
 * A JSON text as bytes, walked without decoding: whitespace, strings, numbers and literals
 * checked as strictly as JSON.parse checks them, and whole values skipped (`skip`) with nothing
 * built — nesting is a loop over a stack of one byte per level, never recursion. pruned-json.ts
 * builds the fields it keeps on top of this walk and skips the rest with it. A hot path (`npm run
 * bench`): strings are walked four bytes at a time.
 */

const TAB = 0x09;
const LF = 0x0a;
const CR = 0x0d;
const SPACE = 0x20;
export const QUOTE = 0x22;
const PLUS = 0x2b;
export const COMMA = 0x2c;
const MINUS = 0x2d;
const DOT = 0x2e;
export const ZERO = 0x30;
const NINE = 0x39;
export const COLON = 0x3a;
export const LBRACKET = 0x5b;
const BACKSLASH = 0x5c;
export const RBRACKET = 0x5d;
export const LBRACE = 0x7b;
export const RBRACE = 0x7d;
const IN_OBJECT = 1;
const IN_ARRAY = 2;

/** Bytes that may follow a backslash in a JSON string (`u` is checked apart). */
const ESCAPES = new Uint8Array(256);
for (const c of '"\\/bfnrt') ESCAPES[c.charCodeAt(0)] = 1;
/** Hexadecimal digits. */
const HEX = new Uint8Array(256);
for (const c of '0123456789abcdefABCDEF') HEX[c.charCodeAt(0)] = 1;

const TRUE = [0x74, 0x72, 0x75, 0x65];
const FALSE = [0x66, 0x61, 0x6c, 0x73, 0x65];
const NULL = [0x6e, 0x75, 0x6c, 0x6c];

/** A walk over `bytes`; `pos` is where it is. */
export class JsonWalker {
  pos = 0;
  /** Whether the last string walked had an escape (then JSON.parse decodes it). */
  protected escaped = false;
  /** The kinds of the containers a skipped value is inside, one byte per level. */
  private stack = new Uint8Array(64);

  /** The body's bytes four at a time, from `wordBase` on (aligned): strings are walked by words. */
  private readonly words: Int32Array;
  private readonly wordBase: number;

  constructor(protected readonly bytes: Buffer) {
    const skew = (4 - (bytes.byteOffset & 3)) & 3;
    this.wordBase = Math.min(skew, bytes.length);
    this.words = new Int32Array(
      bytes.buffer,
      bytes.byteOffset + this.wordBase,
      (bytes.length - this.wordBase) >> 2,
    );
  }

  fail(at: number): SyntaxError {
    return new SyntaxError(
      at >= this.bytes.length ? 'unexpected end of JSON' : `unexpected byte at ${at}`,
    );
  }

  whitespace(from: number): number {
    const b = this.bytes;
    let i = from;
    for (;;) {
      const c = b[i];
      if (c !== SPACE && c !== LF && c !== CR && c !== TAB) return i;
      i++;
    }
  }

  /**
   * Past the string whose opening quote is at `from`; sets `escaped`. Checked as JSON.parse
   * checks it: no raw control character, only valid escapes. Bytes ≥ 0x80 pass untouched (the
   * UTF-8 decoding JSON.parse's text went through never fails).
   */
  protected string(from: number): number {
    const b = this.bytes;
    const n = b.length;
    const words = this.words;
    const base = this.wordBase;
    let escaped = false;
    let i = from + 1;
    while (i < n) {
      if (((i - base) & 3) === 0 && i >= base) {
        // Four bytes at a time while none is a quote, a backslash or a control character.
        let k = (i - base) >> 2;
        while (k < words.length && !special(words[k] as number)) k++;
        i = base + (k << 2);
        if (i >= n) break;
      }
      const c = b[i] as number;
      if (c === QUOTE) {
        this.escaped = escaped;
        return i + 1;
      }
      if (c === BACKSLASH) {
        escaped = true;
        const e = b[i + 1] as number;
        if (e === 0x75) {
          if (
            !HEX[b[i + 2] as number] ||
            !HEX[b[i + 3] as number] ||
            !HEX[b[i + 4] as number] ||
            !HEX[b[i + 5] as number]
          ) {
            throw this.fail(i);
          }
          i += 6;
        } else if (ESCAPES[e]) {
          i += 2;
        } else {
          throw this.fail(i);
        }
      } else if (c < SPACE) {
        throw this.fail(i);
      } else {
        i++;
      }
    }
    throw this.fail(n);
  }

  private number(from: number): number {
    const b = this.bytes;
    let i = from;
    if (b[i] === MINUS) i++;
    let c = b[i] as number;
    if (c === ZERO) {
      i++;
    } else if (c > ZERO && c <= NINE) {
      i++;
      while (isDigit(b[i])) i++;
    } else {
      throw this.fail(i);
    }
    if (b[i] === DOT) {
      i++;
      if (!isDigit(b[i])) throw this.fail(i);
      while (isDigit(b[i])) i++;
    }
    c = b[i] as number;
    if (c === 0x65 || c === 0x45) {
      i++;
      if (b[i] === PLUS || b[i] === MINUS) i++;
      if (!isDigit(b[i])) throw this.fail(i);
      while (isDigit(b[i])) i++;
    }
    return i;
  }

  private literal(from: number, word: readonly number[]): number {
    const b = this.bytes;
    for (let k = 0; k < word.length; k++) if (b[from + k] !== word[k]) throw this.fail(from + k);
    return from + word.length;
  }

  /** Past the value at `from`, checked and not built; nesting is a loop over a byte stack. */
  protected skip(from: number): number {
    const b = this.bytes;
    let i = from;
    let depth = 0;
    for (;;) {
      // A value starts at i.
      const c = b[i];
      if (c === QUOTE) {
        i = this.string(i);
      } else if (c === LBRACE) {
        i = this.whitespace(i + 1);
        if (b[i] === RBRACE) {
          i++;
        } else {
          this.push(depth++, IN_OBJECT);
          i = this.member(i);
          continue;
        }
      } else if (c === LBRACKET) {
        i = this.whitespace(i + 1);
        if (b[i] === RBRACKET) {
          i++;
        } else {
          this.push(depth++, IN_ARRAY);
          continue;
        }
      } else if (c === MINUS || (c !== undefined && c >= ZERO && c <= NINE)) {
        i = this.number(i);
      } else if (c === 0x74) {
        i = this.literal(i, TRUE);
      } else if (c === 0x66) {
        i = this.literal(i, FALSE);
      } else if (c === 0x6e) {
        i = this.literal(i, NULL);
      } else {
        throw this.fail(i);
      }
      // A value ended at i: a comma for the next one, or the end of containers.
      for (;;) {
        // At depth 0 `escaped` is that of the string skipped, if the value was one (`decode`).
        if (depth === 0) return i;
        i = this.whitespace(i);
        const inside = this.stack[depth - 1];
        const d = b[i];
        if (d === COMMA) {
          i = this.whitespace(i + 1);
          if (inside === IN_OBJECT) i = this.member(i);
          break;
        }
        if (d === (inside === IN_OBJECT ? RBRACE : RBRACKET)) {
          depth--;
          i++;
          continue;
        }
        throw this.fail(i);
      }
    }
  }

  /** Past a member's key and colon, at its value. */
  private member(from: number): number {
    const b = this.bytes;
    if (b[from] !== QUOTE) throw this.fail(from);
    let i = this.whitespace(this.string(from));
    if (b[i] !== COLON) throw this.fail(i);
    i = this.whitespace(i + 1);
    return i;
  }

  private push(depth: number, kind: number): void {
    if (depth === this.stack.length) {
      const grown = new Uint8Array(depth * 2);
      grown.set(this.stack);
      this.stack = grown;
    }
    this.stack[depth] = kind;
  }
}

const ONES = 0x01010101;
const HIGH = 0x80808080 | 0;
const QUOTES = 0x22222222;
const BACKSLASHES = 0x5c5c5c5c;
const SPACES = 0x20202020;

/** Whether one of the four bytes of `word` is a quote, a backslash or below 0x20 (bit tricks). */
function special(word: number): boolean {
  const quote = word ^ QUOTES;
  const backslash = word ^ BACKSLASHES;
  return (
    ((((quote - ONES) & ~quote) | ((backslash - ONES) & ~backslash) | ((word - SPACES) & ~word)) &
      HIGH) !==
    0
  );
}

function isDigit(c: number | undefined): boolean {
  return c !== undefined && c >= ZERO && c <= NINE;
}
