/**
 * Reading a Lease's spec. Kubelets write `renewTime` as a MicroTime (RFC 3339, six fractional
 * digits, UTC) and `leaseDurationSeconds` (default 40). Every field is optional in the API, and
 * `@kubernetes/client-node` hands `renewTime` over as a string although its type says Date.
 * Nothing here throws: a field that cannot be read becomes a reason for the `invalid` verdict.
 */
import { DEFAULT_LEASE_DURATION_SECONDS } from './policy.js';

const RFC3339 =
  /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;

/**
 * Parses an RFC 3339 timestamp (MicroTime or Time) into epoch milliseconds, keeping sub-millisecond
 * digits as a fraction. Returns undefined when the text is not a valid timestamp.
 */
export function parseTimestamp(text: string): number | undefined {
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
  | { readonly kind: 'seconds'; readonly seconds: number; readonly defaulted: boolean }
  | { readonly kind: 'invalid'; readonly problem: string };

/** Reads `spec.leaseDurationSeconds`; absent means the kubelet default (40). */
export function readLeaseDuration(value: unknown): LeaseDuration {
  if (value === null || value === undefined) {
    return { kind: 'seconds', seconds: DEFAULT_LEASE_DURATION_SECONDS, defaulted: true };
  }
  if (typeof value !== 'number' || !Number.isFinite(value)) {
    return {
      kind: 'invalid',
      problem: `leaseDurationSeconds ${quote(String(value))} is not a number`,
    };
  }
  if (value <= 0) {
    return { kind: 'invalid', problem: `leaseDurationSeconds ${value} is not positive` };
  }
  return { kind: 'seconds', seconds: value, defaulted: false };
}

/** Quotes untrusted text for a reason line: control characters escaped, at most 64 characters. */
function quote(text: string): string {
  const clipped = text.length > 64 ? `${text.slice(0, 61)}...` : text;
  return JSON.stringify(clipped);
}
