/**
 * Inflates the gzip answers of one read into one buffer, reused from page to page. `gunzipSync`
 * returns each page in a new buffer of its own (~2 MB a page of 500 Nodes), and V8 counts every
 * such allocation toward its old generation: at 100,000 nodes a relist allocated ~700 MB of them
 * and paid ~40 full mark-compacts for it; into one reused buffer, 9, and a quarter to a half less
 * of the relist's CPU (docs/BENCHMARKS.md, "A relist's Buffer churn").
 *
 * Node has no public call that inflates into a caller's buffer. This one drives the zlib handle
 * that `gunzipSync` itself drives (its `writeSync` and `_writeState`, node:zlib's internals), so
 * the bytes, errors, concatenated members and trailing data are zlib's own, as before. It checks
 * that they are there and answer as expected once, on first use; where they are not (another
 * Node), every page goes through `gunzipSync` as before.
 */

import { constants, Gunzip, gunzipSync, gzipSync } from 'node:zlib';

/** What of `Gunzip` is driven here: the native handle and the state it writes back. */
interface GunzipInternals {
  readonly _handle?: {
    writeSync?: (
      flush: number,
      input: Buffer,
      inOffset: number,
      inLength: number,
      output: Buffer,
      outOffset: number,
      outLength: number,
    ) => void;
  };
  /** After a write: the output bytes left free, the input bytes not consumed. */
  readonly _writeState?: Uint32Array;
  /** Public (zlib's `reset()`), not in every version of its types. */
  reset(): void;
}

/** The body is over the cap: `code` as `gunzipSync`'s own error with `maxOutputLength`. */
function tooLarge(): Error {
  return Object.assign(new RangeError('inflated body over the cap'), {
    code: 'ERR_BUFFER_TOO_LARGE',
  });
}

/** One read's gzip inflater; a body it returns is valid until the next one is inflated. */
export class GzipInflater {
  private output: Buffer | undefined;
  private engine: (Gunzip & GunzipInternals) | undefined;

  /**
   * `raw` inflated, at most `cap` bytes (else an error whose code is ERR_BUFFER_TOO_LARGE);
   * `sizeHint` is the size its gzip trailer announces. Throws on input that is not valid gzip.
   * The result shares the reused buffer: parse or copy it before the next body is inflated.
   */
  inflate(raw: Buffer, cap: number, sizeHint: number): Buffer {
    handleWorks ??= GzipInflater.probe();
    if (!handleWorks) return gunzipSync(raw, { maxOutputLength: cap, chunkSize: sizeHint });
    return this.viaHandle(raw, cap, sizeHint);
  }

  /** Frees zlib's state and the buffer now (the read is over), not at the next collection. */
  close(): void {
    this.engine?.close();
    this.engine = undefined;
    this.output = undefined;
  }

  /** A small body, through the handle from a too-small buffer: whether it comes back whole. */
  private static probe(): boolean {
    const inflater = new GzipInflater();
    try {
      const text = Buffer.from('{"kind":"probe","items":[]}'.repeat(100));
      const engine = new Gunzip() as Gunzip & GunzipInternals;
      const usable =
        typeof engine._handle?.writeSync === 'function' &&
        engine._writeState instanceof Uint32Array;
      engine.close();
      return usable && inflater.viaHandle(gzipSync(text), 1 << 20, 64).equals(text);
    } catch {
      return false;
    } finally {
      inflater.close();
    }
  }

  private viaHandle(raw: Buffer, cap: number, sizeHint: number): Buffer {
    const engine = this.fresh();
    const state = engine._writeState as Uint32Array;
    let output = this.bufferFor(Math.min(sizeHint, cap + 1), cap + 1);
    let inOffset = 0;
    let outOffset = 0;
    for (;;) {
      const inLength = raw.length - inOffset;
      const outLength = output.length - outOffset;
      engine._handle?.writeSync?.(
        constants.Z_FINISH,
        raw,
        inOffset,
        inLength,
        output,
        outOffset,
        outLength,
      );
      // zlib reports an error by destroying the stream, synchronously.
      if (engine.destroyed) {
        this.engine = undefined;
        throw new Error('not valid gzip');
      }
      const [outLeft, inLeft] = state as unknown as [number, number];
      outOffset += outLength - outLeft;
      inOffset += inLength - inLeft;
      if (outOffset > cap) throw tooLarge();
      // Room left: zlib is done (as gunzipSync, which stops at the same point).
      if (outLeft > 0) return output.subarray(0, outOffset);
      if (output.length > cap) throw tooLarge();
      // A trailer that understated the size: a larger buffer, what is inflated copied over.
      const larger = Buffer.allocUnsafe(Math.min(cap + 1, Math.ceil(output.length * 1.5)));
      output.copy(larger, 0, 0, outOffset);
      this.output = larger;
      output = larger;
    }
  }

  /**
   * The reused buffer, at least `size` bytes and at most `limit`: a quarter more than asked when
   * it grows, so that pages a little larger than the last do not each make a new one.
   */
  private bufferFor(size: number, limit: number): Buffer {
    if (this.output === undefined || this.output.length < size) {
      const grown = this.output === undefined ? size : Math.ceil(size * 1.25);
      this.output = Buffer.allocUnsafe(Math.min(limit, grown));
    }
    return this.output;
  }

  /** The engine, reset for a new body (made anew after an error closed it). */
  private fresh(): Gunzip & GunzipInternals {
    if (this.engine === undefined) {
      this.engine = new Gunzip() as Gunzip & GunzipInternals;
      // Its error is read from `destroyed` above; the event itself must not go unhandled.
      this.engine.on('error', () => undefined);
    } else {
      this.engine.reset();
    }
    return this.engine;
  }
}

/** Whether node:zlib's handle is there and inflates as expected: checked on first use. */
let handleWorks: boolean | undefined;
