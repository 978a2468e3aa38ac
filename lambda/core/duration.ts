/**
 * Formats a number of seconds the way `kubectl get` prints ages: a port of HumanDuration from
 * k8s.io/apimachinery/pkg/util/duration, with two or three significant figures. `45s`, `119s`,
 * `3m20s`, `10m` (from 10 minutes on, seconds are dropped), `179m`, `3h1m`, `8h` (from 8 hours on,
 * minutes are dropped), `47h`, `2d1h`, `8d`, `729d`, `2y1d`, `8y`. Fractions of a second are cut
 * off; a second or less in the future (clock jitter) reads `0s`, more than that `<invalid>`.
 */
export function formatAge(totalSeconds: number): string {
  if (!Number.isFinite(totalSeconds)) return '<invalid>';
  const seconds = Math.trunc(totalSeconds);
  if (seconds < -1) return '<invalid>';
  if (seconds <= 0) return '0s';
  if (seconds < 60 * 2) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 10) return withRest(minutes, 'm', seconds % 60, 's');
  if (minutes < 60 * 3) return `${minutes}m`;
  const hours = Math.floor(minutes / 60);
  if (hours < 8) return withRest(hours, 'h', minutes % 60, 'm');
  if (hours < 48) return `${hours}h`;
  const days = Math.floor(hours / 24);
  if (hours < 24 * 8) return withRest(days, 'd', hours % 24, 'h');
  if (hours < 24 * 365 * 2) return `${days}d`;
  const years = Math.floor(days / 365);
  if (hours < 24 * 365 * 8) return withRest(years, 'y', days % 365, 'd');
  return `${years}y`;
}

/** `3m20s`, or `3m` when the rest is zero. */
function withRest(value: number, unit: string, rest: number, restUnit: string): string {
  return rest === 0 ? `${value}${unit}` : `${value}${unit}${rest}${restUnit}`;
}

/**
 * Durations as kubectl and Go write them: `90s`, `10m`, `2h`, `1h30m`, `500ms`, or bare seconds.
 * Returns seconds, or undefined when the text is not a duration.
 */
const UNIT_SECONDS: Readonly<Record<string, number>> = { h: 3600, m: 60, s: 1, ms: 0.001 };
const PART = /(\d+(?:\.\d+)?)(ms|h|m|s)/g;

export function parseDuration(text: string): number | undefined {
  const trimmed = text.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Number(trimmed);
  if (!/^(\d+(\.\d+)?(ms|h|m|s))+$/.test(trimmed)) return undefined;
  let seconds = 0;
  for (const [, value, unit] of trimmed.matchAll(PART)) {
    seconds += Number(value) * (UNIT_SECONDS[unit ?? 's'] ?? 1);
  }
  return Math.round(seconds * 1000) / 1000;
}
