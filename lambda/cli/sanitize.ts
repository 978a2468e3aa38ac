/**
 * The one sanitiser of everything the CLI writes to a terminal: node and lease names, reasons, a
 * Node's Ready message, Status messages, error lines. A kubelet (or a hostile API server) can
 * write any text it likes; escape sequences in it could rewrite the screen, hide a line or fake
 * one. Control characters (C0, DEL, C1), line and paragraph separators and bidirectional
 * overrides are shown escaped (`\x1b`, `\u{202e}`), and a backslash is doubled so that an escape
 * cannot be forged.
 */

// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
const UNPRINTABLE = /[\\\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

export function sanitize(text: string): string {
  return text.replace(UNPRINTABLE, (c) => {
    if (c === '\\') return '\\\\';
    const code = c.codePointAt(0) ?? 0;
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u{${code.toString(16)}}`;
  });
}
