import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatAge } from '../lambda/core/duration.js';

const ms = 1 / 1000;
const s = 1;
const m = 60;
const h = 60 * m;
const d = 24 * h;
const y = 365 * d;

/**
 * The cases of TestHumanDuration and TestHumanDurationBoundaries in
 * k8s.io/apimachinery/pkg/util/duration/duration_test.go, in seconds (`time.Millisecond` is
 * `ms`; `-2*time.Second + 1` is one nanosecond more than -2 s).
 */
const KUBECTL: ReadonlyArray<readonly [number, string]> = [
  [s, '1s'],
  [70 * s, '70s'],
  [190 * s, '3m10s'],
  [70 * m, '70m'],
  [47 * h, '47h'],
  [49 * h, '2d1h'],
  [(8 * 24 + 2) * h, '8d'],
  [367 * d, '367d'],
  [(365 * 2 * 24 + 25) * h, '2y1d'],
  [(365 * 8 * 24 + 2) * h, '8y'],
  // boundaries
  [-2 * s, '<invalid>'],
  [-2 * s + 1e-9, '0s'],
  [0, '0s'],
  [s - ms, '0s'],
  [2 * m - ms, '119s'],
  [2 * m, '2m'],
  [2 * m + s, '2m1s'],
  [10 * m - ms, '9m59s'],
  [10 * m, '10m'],
  [10 * m + s, '10m'],
  [3 * h - ms, '179m'],
  [3 * h, '3h'],
  [3 * h + m, '3h1m'],
  [8 * h - ms, '7h59m'],
  [8 * h, '8h'],
  [8 * h + 59 * m, '8h'],
  [2 * d - ms, '47h'],
  [2 * d, '2d'],
  [2 * d + h, '2d1h'],
  [8 * d - ms, '7d23h'],
  [8 * d, '8d'],
  [8 * d + 23 * h, '8d'],
  [2 * y - ms, '729d'],
  [2 * y, '2y'],
  [2 * y + 23 * h, '2y'],
  [2 * y + 23 * h + 59 * m, '2y'],
  [2 * y + 24 * h - ms, '2y'],
  [2 * y + 24 * h, '2y1d'],
  [3 * y, '3y'],
  [4 * y, '4y'],
  [5 * y, '5y'],
  [6 * y, '6y'],
  [7 * y, '7y'],
  [8 * y - ms, '7y364d'],
  [8 * y, '8y'],
  [8 * y + 364 * d, '8y'],
  [9 * y, '9y'],
];

describe('formatAge (kubectl HumanDuration)', () => {
  for (const [seconds, text] of KUBECTL) {
    it(`${seconds} s → ${text}`, () => assert.equal(formatAge(seconds), text));
  }

  it('the ages the emails and the CLI table show most', () => {
    assert.equal(formatAge(45), '45s');
    assert.equal(formatAge(80), '80s');
    assert.equal(formatAge(200), '3m20s');
    assert.equal(formatAge(725), '12m');
    assert.equal(formatAge(7_500), '125m', 'under 3 hours, minutes only');
    assert.equal(formatAge(3 * h + 5 * m), '3h5m');
    assert.equal(formatAge(3 * d + 4 * h), '3d4h');
  });

  it('a number that is not one reads <invalid>', () => {
    assert.equal(formatAge(Number.NaN), '<invalid>');
    assert.equal(formatAge(Number.POSITIVE_INFINITY), '<invalid>');
  });
});
