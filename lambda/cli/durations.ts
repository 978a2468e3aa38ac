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
