/**
 * The small formatting pieces every part of an email uses: times, counts, labelled lines and
 * prose wrapped to a fixed width, and untrusted text (names, reasons) made safe for one line.
 */
import { formatAge } from '../../../core/duration.js';
import { cleanText, squeeze, truncate } from './text.js';

/** Width of the body's prose, in columns. */
export const WIDTH = 78;
/** The column where the value of a `label:` line starts. */
const LABEL_WIDTH = 17;

export const NO_ZONE = '(no zone)';

export function zoneName(zone: string | null): string {
  return (zone && bodyText(zone, 63)) || NO_ZONE;
}

export function nodeGroupName(nodeGroup: string): string {
  return bodyText(nodeGroup, 63) || '(unnamed)';
}

export function nodeName(name: string): string {
  return bodyText(name, 253) || '(unnamed)';
}

const PLAIN = /^[\x21-\x7e]+(?: [\x21-\x7e]+)*$/;

/** Untrusted text on one line of the body: cleaned, squeezed, shortened. */
export function bodyText(text: string, max: number): string {
  // Fast path for the common case (DNS names, ids): nothing to clean.
  if (text.length <= max && PLAIN.test(text)) return text;
  return truncate(squeeze(cleanText(text)), max);
}

/** `2026-11-29 17:52:14 UTC`. */
export function utc(ms: number): string {
  if (!Number.isFinite(ms)) return '(unknown time)';
  const date = new Date(ms);
  if (Number.isNaN(date.getTime())) return '(unknown time)';
  return `${date.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

/**
 * A moment and its age at the check, the one way the email says when something happened:
 * `2026-11-29 17:50:40 UTC (80s ago)`. Ages are kubectl's (`formatAge`), in the email as in
 * `kubectl get`.
 */
export function moment(ms: number, at: number): string {
  return `${utc(ms)} (${formatAge((at - ms) / 1000)} ago)`;
}

/** A stretch of time and its length, the one way the email says how long something lasted. */
export function period(from: number, to: number): string {
  return `${utc(from)} to ${utc(to)} (${formatAge((to - from) / 1000)})`;
}

/** Built on first use, not at load: a number format loads ICU's locale data (~8 ms of a cold start). */
let numbers: Intl.NumberFormat | undefined;

/** `1,234`. */
export function fmt(value: number): string {
  numbers ??= new Intl.NumberFormat('en-US');
  return numbers.format(value);
}

export function plural(count: number, word: string): string {
  return count === 1 ? word : `${word}s`;
}

/** `Label:` padded to a fixed column, then the value; more values below it, in that column. */
export function labelled(label: string, ...values: string[]): string[] {
  return values.map((v, i) => (i === 0 ? `${label}:` : '').padEnd(LABEL_WIDTH) + v);
}

/** A title underlined with dashes (at most the body's width). */
export function titled(title: string): string[] {
  return [title, '-'.repeat(Math.min(title.length, WIDTH))];
}

/**
 * A titled block of prose: its labelled facts (in order), a blank line, the prose, and the
 * points to check (when any) under 'What to check'.
 */
export function block(b: {
  readonly title: string;
  readonly facts: Readonly<Record<string, string>>;
  readonly prose: string;
  readonly checks?: readonly string[];
}): string[] {
  const facts = Object.entries(b.facts).flatMap(([label, value]) => labelled(label, value));
  const lines = [...titled(b.title), ...facts, '', ...wrap(b.prose)];
  if (b.checks) lines.push('', 'What to check', ...bullets(b.checks));
  return lines;
}

export function bullets(points: readonly string[]): string[] {
  return points.flatMap((p) => wrap(p, '  - ', '    '));
}

/** Wraps prose at word boundaries to WIDTH columns; `first` and `rest` lead the lines. */
export function wrap(text: string, first = '', rest = first): string[] {
  const lines: string[] = [];
  let line = first;
  let empty = true;
  for (const word of text.split(' ')) {
    if (!empty && line.length + 1 + word.length > WIDTH) {
      lines.push(line);
      line = rest + word;
    } else {
      line += (empty ? '' : ' ') + word;
    }
    empty = false;
  }
  lines.push(line);
  return lines;
}
