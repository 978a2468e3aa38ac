import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseTimestamp } from '../lambda/core/lease.js';

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/** A deterministic stream of pseudo-random whole numbers (no flaky seeds). */
function* numbers(seed: number): Generator<number> {
  let x = seed;
  for (;;) {
    x = (x * 1_103_515_245 + 12_345) % 2_147_483_648;
    yield x;
  }
}

describe('parseTimestamp: the canonical shape (what kubelets write) reads as any RFC 3339 form does', () => {
  it('gives, for Z, the very number the same instant written with +00:00 gives, valid or not', () => {
    const next = numbers(42);
    const pick = (from: number, to: number) =>
      from + ((next.next().value as number) % (to - from + 1));
    let valid = 0;
    for (let i = 0; i < 20_000; i++) {
      const digits = pick(0, 9);
      const fraction =
        digits === 0 ? '' : `.${String(pick(0, 999_999_999)).padStart(9, '0').slice(0, digits)}`;
      const stem = `${pad(pick(1960, 2500), 4)}-${pad(pick(0, 13))}-${pad(pick(0, 32))}T${pad(pick(0, 24))}:${pad(pick(0, 60))}:${pad(pick(0, 61))}${fraction}`;
      const canonical = parseTimestamp(`${stem}Z`);
      assert.equal(canonical, parseTimestamp(`${stem}+00:00`), stem);
      assert.equal(canonical, parseTimestamp(`${stem}z`), stem);
      if (canonical !== undefined) valid++;
    }
    assert.ok(valid > 5_000, `too few valid timestamps generated (${valid})`);
  });

  it('reads a MicroTime to the microsecond, and the calendar as Date does', () => {
    const at = Date.UTC(2026, 10, 30, 22, 31, 7, 123);
    assert.equal(parseTimestamp('2026-11-30T22:31:07.123456Z'), at + 0.456);
    assert.equal(parseTimestamp('2026-11-30T22:31:07Z'), at - 123);
    assert.equal(parseTimestamp('2024-02-29T00:00:00Z'), Date.UTC(2024, 1, 29));
    assert.equal(parseTimestamp('2000-02-29T00:00:00.5Z'), Date.UTC(2000, 1, 29) + 500);
    assert.equal(parseTimestamp('2016-12-31T23:59:60Z'), Date.UTC(2016, 11, 31, 23, 59, 59));
    for (const bad of [
      '2023-02-29T00:00:00Z',
      '2100-02-29T00:00:00Z',
      '2026-04-31T00:00:00.000001Z',
      '2026-11-30T24:00:00Z',
      '2026-11-30T22:00:00.Z',
      '2026-11-30T22:00:00.1234567890Z',
      '2026-1a-30T22:00:00Z',
      '2026-11-30T22:00:00.000000Zx',
      ' 2026-11-30T22:00:00Z',
    ]) {
      assert.equal(parseTimestamp(bad), undefined, bad);
    }
  });
});
