/**
 * Making untrusted text (node names, cluster names, reasons) safe to put in a notification.
 *
 * Two levels:
 * - `cleanText` (bodies, attribute values): keeps UTF-8 — SNS bodies are UTF-8 and so are email
 *   clients — but removes every character of the unprintable set (core/printable.ts): what can
 *   break or spoof a plain-text email or a terminal, such as control characters (C0, DEL, C1,
 *   including ESC), line and paragraph separators, bidi overrides and other invisible format
 *   characters (U+202E can make `evil.exe` read as `exe.live`) and noncharacters; a lone
 *   surrogate becomes U+FFFD. Other whitespace becomes a plain space. An emoji keeps the joiners
 *   that make it one picture (a zero-width joiner between two pictographs, the emoji variation
 *   selector after one); alone, they are removed like the rest.
 * - `asciiText` (SNS subjects): printable ASCII only. The SNS API reference once said "Subjects
 *   must be ASCII text", AWS's own SNS integrations (Amazon Managed Prometheus) replace non-ASCII
 *   subjects with an error string, and mail relays mangle unencoded 8-bit headers. Kubernetes
 *   node names are DNS-1123 (ASCII), so only hostile or unusual names lose anything, and the body
 *   still carries them in full. Accents are folded (`café` → `cafe`), the rest becomes `?`.
 *
 * Truncation never splits a surrogate pair or a grapheme (an emoji with its modifiers, a letter
 * with its combining marks).
 */
import { UNPRINTABLE_CLASS } from '../../../core/printable.js';

/**
 * A pictograph with its emoji variation selector (U+FE0F) and skin tone, if any. Unicode counts
 * code points kept for future emoji as pictographs already: unassigned, they stay unprintable.
 */
const PICTOGRAPH = `(?![${UNPRINTABLE_CLASS}])\\p{Extended_Pictographic}\\u{FE0F}?\\p{Emoji_Modifier}?`;
/**
 * An emoji sequence, kept whole (group 1), or one unprintable character, removed. The joiners
 * inside an emoji are in the set; everywhere else they are as invisible as the rest of it. Built
 * on first use: V8 parses its Unicode property classes when it is built (~2 ms of a cold start).
 */
let emojiOrUnsafe: RegExp | undefined;
/** Whitespace other than a plain space (NBSP, ideographic space, ...). */
const OTHER_SPACE = /[^\S ]|\p{Zs}/gu;

/** Removes the unprintable characters (control, bidi, invisible, unassigned); keeps the rest. */
export function cleanText(text: string): string {
  emojiOrUnsafe ??= new RegExp(
    `(${PICTOGRAPH}(?:\\u200D${PICTOGRAPH})*)|[${UNPRINTABLE_CLASS}]`,
    'gu',
  );
  return text
    .toWellFormed()
    .replace(OTHER_SPACE, ' ')
    .replace(emojiOrUnsafe, (_, emoji: string | undefined) => emoji ?? '');
}

/** Printable ASCII only (0x20–0x7E): accents folded, other characters replaced by `?`. */
export function asciiText(text: string): string {
  return cleanText(text)
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .replace(/[^\x20-\x7e]+/g, '?');
}

/** Collapses runs of spaces and trims. */
export function squeeze(text: string): string {
  return text.replace(/ {2,}/g, ' ').trim();
}

/**
 * Built on the first cut, not at load: a segmenter loads ICU's break data (~14 ms of a cold
 * start's CPU), and most invocations render nothing (docs/BENCHMARKS.md, cold start).
 */
let graphemes: Intl.Segmenter | undefined;

/**
 * Shortens `text` to at most `max` UTF-16 code units (the unit SNS and most limits count in, and
 * never fewer than code points), ending with `ellipsis` when something was cut. Cuts between
 * graphemes; a single grapheme longer than the room left is dropped whole.
 */
export function truncate(text: string, max: number, ellipsis = '…'): string {
  if (text.length <= max) return text;
  const room = max - ellipsis.length;
  if (room <= 0) return ellipsis.slice(0, Math.max(0, max));
  let out = '';
  graphemes ??= new Intl.Segmenter('en', { granularity: 'grapheme' });
  for (const { segment } of graphemes.segment(text)) {
    if (out.length + segment.length > room) break;
    out += segment;
  }
  return out + ellipsis;
}

/** UTF-8 size of a string, in bytes. */
export function utf8Bytes(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}

/**
 * A name as it may appear in a shell command the reader will copy: as-is when it is a plain
 * DNS-like name, otherwise single-quoted so that `$(...)`, `;` or spaces are inert.
 */
export function shellWord(text: string): string {
  if (/^[A-Za-z0-9][A-Za-z0-9._:-]*$/.test(text)) return text;
  return `'${text.replaceAll("'", `'\\''`)}'`;
}
