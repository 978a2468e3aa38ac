/**
 * Reading a Lease's spec. Kubelets write `renewTime` as a MicroTime (RFC 3339, six fractional
 * digits, UTC) and `leaseDurationSeconds` (default 40). Every field is optional in the API, and
 * `@kubernetes/client-node` hands `renewTime` over as a string although its type says Date.
 * Nothing here throws: a field that cannot be read becomes a reason for the `invalid` verdict.
 */
import { DEFAULT_LEASE_DURATION_SECONDS } from './policy.js';
import { quoted } from './printable.js';

/** A field's text in a reason line: at most 64 characters. */
const quote = (text: string) => quoted(text, 64);

const RFC3339 =
  /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;

/**
 * Parses an RFC 3339 timestamp (MicroTime or Time) into epoch milliseconds, keeping sub-millisecond
 * digits as a fraction. Returns undefined when the text is not a valid timestamp.
 */
export function parseTimestamp(text: string): number | undefined {
  const fast = parseCanonical(text);
  return fast === null ? parseAnyRfc3339(text) : fast;
}

/** Milliseconds per day. */
const DAY_MS = 86_400_000;
/** Digit i of text as a number, or NaN when it is no digit. */
function digit(text: string, i: number): number {
  const c = text.charCodeAt(i) - 48;
  return c >= 0 && c <= 9 ? c : Number.NaN;
}
function digits(text: string, from: number, count: number): number {
  let value = 0;
  for (let i = from; i < from + count; i++) value = value * 10 + digit(text, i);
  return value;
}
/** Days from 1970-01-01 to a proleptic Gregorian date (H. Hinnant's days_from_civil). */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146_097 + doe - 719_468;
}
function daysInMonth(year: number, month: number): number {
  if (month !== 2) return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
  return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
}

/**
 * The shape kubelets and the API server write, `YYYY-MM-DDTHH:MM:SS[.fraction]Z` with a year from
 * 1970, read without a regular expression or a Date: the same number parseAnyRfc3339 gives
 * (fraction ÷ 10^digits is the correctly rounded value of the decimal, as Number() reads it).
 * null: not that shape (the caller reads it the general way); undefined: that shape, but no
 * valid time.
 */
function parseCanonical(text: string): number | undefined | null {
  const length = text.length;
  if (length < 20 || length > 30) return null;
  if (
    text.charCodeAt(4) !== 45 || // -
    text.charCodeAt(7) !== 45 ||
    text.charCodeAt(10) !== 84 || // T
    text.charCodeAt(13) !== 58 || // :
    text.charCodeAt(16) !== 58 ||
    text.charCodeAt(length - 1) !== 90 // Z
  ) {
    return null;
  }
  const year = digits(text, 0, 4);
  const month = digits(text, 5, 2);
  const day = digits(text, 8, 2);
  const hour = digits(text, 11, 2);
  const minute = digits(text, 14, 2);
  const second = digits(text, 17, 2);
  let fraction = 0;
  if (length > 20) {
    const count = length - 21;
    if (text.charCodeAt(19) !== 46 || count < 1 || count > 9) return null; // .
    fraction = (digits(text, 20, count) / 10 ** count) * 1000;
  }
  // NaN (a non-digit) fails every comparison: the general reader decides.
  if (!(year >= 1970 && fraction >= 0 && month >= 0 && day >= 0 && hour >= 0 && minute >= 0)) {
    return null;
  }
  if (!(second >= 0)) return null;
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 60) {
    return undefined;
  }
  if (day > daysInMonth(year, month)) return undefined;
  const base =
    daysFromCivil(year, month, day) * DAY_MS +
    hour * 3_600_000 +
    minute * 60_000 +
    Math.min(second, 59) * 1000;
  return base + fraction - 0;
}

/** Any RFC 3339 timestamp (offsets, lower-case t and z, years before 1970). */
function parseAnyRfc3339(text: string): number | undefined {
  const m = RFC3339.exec(text);
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s, frac, z, sign, oh, om] = m;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const hour = Number(h);
  const minute = Number(mi);
  const second = Number(s);
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 60) {
    return undefined;
  }
  const base = Date.UTC(year, month - 1, day, hour, minute, Math.min(second, 59));
  // Date.UTC rolls 31 February over into March: reject days the month does not have.
  if (new Date(base).getUTCDate() !== day) return undefined;
  const fraction = frac ? Number(`0.${frac}`) * 1000 : 0;
  const offsetMinutes = z ? 0 : (sign === '-' ? -1 : 1) * (Number(oh) * 60 + Number(om));
  return base + fraction - offsetMinutes * 60_000;
}

/** The longest name Kubernetes accepts for a Node or a Lease (a DNS subdomain, RFC 1123). */
export const MAX_NAME_LENGTH = 253;

/** Why an object whose name is `length` characters cannot be judged (its name is shown cut). */
export function nameProblem(length: number): string {
  return `its name is ${length} characters, and Kubernetes allows at most ${MAX_NAME_LENGTH} (shown cut)`;
}

export type RenewTime =
  | { readonly kind: 'time'; readonly raw: string; readonly at: number }
  | { readonly kind: 'never' }
  | { readonly kind: 'invalid'; readonly problem: string };

/** Reads `spec.renewTime` as the API delivered it (string, null/absent, or a Date from a client). */
export function readRenewTime(value: unknown): RenewTime {
  if (value === null || value === undefined) return { kind: 'never' };
  if (value instanceof Date) {
    const at = value.getTime();
    return Number.isNaN(at)
      ? { kind: 'invalid', problem: 'renewTime is an invalid date' }
      : { kind: 'time', raw: value.toISOString(), at };
  }
  if (typeof value !== 'string') {
    return { kind: 'invalid', problem: `renewTime is a ${typeof value}, not a timestamp` };
  }
  const at = parseTimestamp(value);
  if (at === undefined) {
    return { kind: 'invalid', problem: `renewTime ${quote(value)} is not an RFC 3339 timestamp` };
  }
  return { kind: 'time', raw: value, at };
}

export type LeaseDuration =
  | { readonly kind: 'seconds'; readonly seconds: number }
  | { readonly kind: 'invalid'; readonly problem: string };

/** The kubelet default, absent or written out: one object for every lease, not one per lease. */
const DEFAULTED = Object.freeze({ kind: 'seconds', seconds: DEFAULT_LEASE_DURATION_SECONDS });

/** Reads `spec.leaseDurationSeconds`; absent means the kubelet default (40). */
export function readLeaseDuration(value: unknown): LeaseDuration {
  if (value === null || value === undefined) return DEFAULTED;
  if (value === DEFAULT_LEASE_DURATION_SECONDS) return DEFAULTED;
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    return {
      kind: 'invalid',
      problem: `leaseDurationSeconds ${quote(String(value))} is not a number`,
    };
  }
  if (value <= 0) {
    return { kind: 'invalid', problem: `leaseDurationSeconds ${value} is not positive` };
  }
  return { kind: 'seconds', seconds: value };
}
