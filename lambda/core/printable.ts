/**
 * What must never reach a reader raw: the one definition of the characters that every output of
 * untrusted text (names, reasons and messages from a cluster, EC2's words) protects against. Each
 * output decides how: the CLI escapes them (`\x1b`, `\u{202e}`), YAML and JSON escape them in
 * their own syntax, an email body drops them, a subject keeps printable ASCII alone. None of them
 * decides which characters they are; this module does.
 *
 * The set, by Unicode property, so that it follows the Unicode version the runtime ships:
 * - Cc, the controls: C0 (ESC starts every terminal escape sequence; CR and LF forge lines; BEL,
 *   BS...), DEL, and C1 (U+0080–U+009F: CSI U+009B, OSC U+009D, DCS U+0090 and ST U+009C are whole
 *   escape sequences in one character to a terminal that reads 8-bit controls).
 * - Cf, the format characters: the bidi embeddings, overrides and isolates of Trojan Source
 *   (U+202A–U+202E, U+2066–U+2069; CVE-2021-42574), the implicit bidi marks (LRM U+200E, RLM
 *   U+200F, ALM U+061C), zero-width space, non-joiner and joiner (U+200B–U+200D), word joiner and
 *   invisible operators (U+2060–U+2064), the BOM (U+FEFF), the soft hyphen, interlinear
 *   annotations, and the tag characters (U+E0001, U+E0020–U+E007F: invisible ASCII).
 * - Zl and Zp: the line and paragraph separators U+2028 and U+2029 (a line break to many
 *   renderers, and raw in JSON.stringify's output).
 * - Cs: lone surrogates (no encoding can write them), Co: private use (a font decides what they
 *   look like), Cn: unassigned code points and noncharacters (U+FFFE, U+FFFF, U+FDD0–U+FDEF).
 * - Default_Ignorable_Code_Point: what a renderer shows as nothing. Beyond the format characters,
 *   the Hangul fillers (U+115F, U+1160, U+3164, U+FFA0: blank-looking letters, the "invisible"
 *   identifiers of the invisible-JavaScript backdoor), the combining grapheme joiner U+034F, the
 *   Khmer inherent vowels U+17B4–U+17B5, and the variation selectors (U+180B–U+180F, U+FE00–U+FE0F,
 *   U+E0100–U+E01EF: invisible, and able to carry hidden bytes).
 *
 * Sources: Boucher & Anderson, "Trojan Source" (2021), and Unicode's Bidi_Control property for
 * the bidi characters; UTS #55 "Unicode Source Code Handling" and UTS #39 for the invisible
 * (default-ignorable) ones; ECMA-48 and xterm's control sequences for the C0 and C1 controls.
 */

/**
 * The set as the body of a regular expression character class, for outputs that match it with
 * characters of their own (a backslash, a quote): `new RegExp(`[\\\\${UNPRINTABLE_CLASS}]`, 'gu')`.
 * Needs the `u` flag.
 */
export const UNPRINTABLE_CLASS =
  '\\p{Cc}\\p{Cf}\\p{Zl}\\p{Zp}\\p{Cs}\\p{Co}\\p{Cn}\\p{Default_Ignorable_Code_Point}';

/** Built on first use: V8 parses the set's Unicode property classes when a RegExp is built. */
let anyUnprintable: RegExp | undefined;

/** Untrusted text in a reason: quoted (controls escaped as JSON does), clipped to `max` characters. */
export function quoted(text: string, max: number): string {
  return JSON.stringify(text.length > max ? `${text.slice(0, max - 3)}...` : text);
}

/** True when any character of `text` is in the set. */
export function hasUnprintable(text: string): boolean {
  anyUnprintable ??= new RegExp(`[${UNPRINTABLE_CLASS}]`, 'u');
  return anyUnprintable.test(text);
}
