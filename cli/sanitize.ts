/**
 * The one sanitiser of everything the CLI writes to a terminal: node and lease names, reasons, a
 * Node's Ready message, Status messages, error lines. A kubelet (or a hostile API server) can
 * write any text it likes; escape sequences in it could rewrite the screen, hide a line or fake
 * one, and bidi or invisible characters could make it read as something else. Every character of
 * the unprintable set (lambda/core/printable.ts: controls, bidi and zero-width characters,
 * separators, BOM, ...) is shown escaped (`\x1b`, `\u{202e}`), and a backslash is doubled so that
 * an escape cannot be forged.
 */
import { UNPRINTABLE_CLASS } from '../lambda/core/printable.js';

/**
 * Printable ASCII but the backslash: nothing to escape. Most text is, and it then needs none of
 * the set's Unicode RegExps, which V8 builds from its property classes at a cost (~1.5 ms each,
 * at every start if built at load: docs/BENCHMARKS.md).
 */
const PLAIN = /^[\x20-\x5b\x5d-\x7e]*$/;
/** Built on first use, as the set's other RegExps (lambda/core/printable.ts). */
let unprintable: RegExp | undefined;

export function sanitize(text: string): string {
  if (PLAIN.test(text)) return text;
  unprintable ??= new RegExp(`[\\\\${UNPRINTABLE_CLASS}]`, 'gu');
  return text.replace(unprintable, (c) => {
    if (c === '\\') return '\\\\';
    const code = c.codePointAt(0) ?? 0;
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u{${code.toString(16)}}`;
  });
}

// A DNS-1123 subdomain: what Kubernetes allows in a Node or Lease name.
const DNS_1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const MAX_NAME = 253;

/** A name Kubernetes allows for a Node or a Lease: a DNS-1123 subdomain of at most 253 characters. */
export function isNodeName(name: string): boolean {
  return name.length <= MAX_NAME && DNS_1123_SUBDOMAIN.test(name);
}

/**
 * A node or lease name for a terminal: as is when it is a node name (isNodeName), otherwise
 * quoted, escaped and cut at 253 characters, so that an odd name is seen to be odd and never
 * printed raw.
 */
export function shownName(name: string): string {
  if (isNodeName(name)) return name;
  const cut = name.length > MAX_NAME ? `${name.slice(0, MAX_NAME)}…` : name;
  return `"${sanitize(cut).replaceAll('"', '\\"')}"`;
}

/** JSON text of printable ASCII and line breaks (JSON.stringify's layout): nothing raw in it. */
const PLAIN_JSON = /^[\x20-\x7e\n]*$/;
let rawInJson: RegExp | undefined;

/**
 * JSON text (from JSON.stringify) with the unprintable characters it leaves raw escaped as \uXXXX
 * (a surrogate pair for one beyond U+FFFF): still JSON, and the same value. JSON.stringify escapes
 * the C0 controls inside strings itself, so one found raw is the layout's own line break.
 */
export function printableJson(json: string): string {
  if (PLAIN_JSON.test(json)) return json;
  rawInJson ??= new RegExp(`[${UNPRINTABLE_CLASS}]`, 'gu');
  return json.replace(rawInJson, (c) => {
    if (c < ' ') return c;
    return c
      .split('') // UTF-16 code units: a surrogate pair beyond U+FFFF
      .map((unit) => `\\u${unit.charCodeAt(0).toString(16).padStart(4, '0')}`)
      .join('');
  });
}
