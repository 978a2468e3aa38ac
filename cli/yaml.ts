/**
 * `-o yaml`: a JSON document (what `-o json` prints) as YAML, the way kubectl prints it — block
 * style, 2-space indent, a list's items at its key's indent, strings quoted only when needed.
 *
 * Strings come from the cluster and can be hostile. A string that a YAML reader would take for
 * something else (`yes`, `null`, `1e3`, `0x1F`, `12:30`, `2026-11-29`, `.inf`, the empty string)
 * is double-quoted, as go-yaml does; one that cannot be a plain scalar (a leading `-`, `#`, `&`,
 * `*`, `!`, `[`, `'`..., a `: ` or ` #` inside, spaces around it) is single-quoted; one with a
 * backslash or a character of the unprintable set (lambda/core/printable.ts: line breaks and other
 * controls, bidi and zero-width characters, separators, BOM, noncharacters, ...) is double-quoted
 * with escapes, so that nothing raw reaches a terminal and the text reads back exactly under YAML
 * 1.1 and 1.2 alike. The `yaml` package's stringify (2.9) and js-yaml's dump (5.5) do not: both
 * print a bidi override (U+202E) and a zero-width space raw, and `yaml` 1.2 leaves `yes` plain.
 */
import { UNPRINTABLE_CLASS } from '../lambda/core/printable.js';

/**
 * A string with one of these is double-quoted (a backslash too: no escape can be forged); what a
 * double-quoted string escapes. Built on first use (`-o yaml`): V8 builds the set's Unicode
 * property classes when a RegExp is made, a cost every command would pay if built at load.
 */
let needsEscapes: RegExp | undefined;
let escaped: RegExp | undefined;

const SHORT_ESCAPES: Readonly<Record<string, string>> = {
  '\\': '\\\\',
  '"': '\\"',
  '\0': '\\0',
  '\t': '\\t',
  '\n': '\\n',
  '\r': '\\r',
};

/**
 * Plain scalars that YAML 1.1 or 1.2 reads as something other than a string: booleans (`y`,
 * `yes`, `on`, ...), null (`~`, `null`, ``), numbers in any base or with `_` or `:` (base 60),
 * infinities, NaN, timestamps, and the merge and value keys.
 */
const NOT_A_STRING = [
  /^(y|Y|yes|Yes|YES|n|N|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF)$/,
  /^(~|null|Null|NULL)$/,
  /^[-+]?(\.[0-9]+|[0-9][0-9_]*(\.[0-9_]*)?)([eE][-+]?[0-9]+)?$/, // decimal and float
  /^[-+]?0b[0-1_]+$/,
  /^[-+]?0o?[0-7_]+$/,
  /^[-+]?0x[0-9a-fA-F_]+$/,
  /^[-+]?[0-9][0-9_]*(:[0-5]?[0-9])+(\.[0-9_]*)?$/, // base 60
  /^[-+]?\.(inf|Inf|INF)$/,
  /^\.(nan|NaN|NAN)$/,
  /^[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}([Tt ]|$)/, // timestamps
  /^(<<|=)$/,
];

/** Characters a plain scalar may not start with. */
const INDICATOR_START = /^[-?:,[\]{}#&*!|>'"%@`\s]/;

function doubleQuoted(text: string): string {
  escaped ??= new RegExp(`[\\\\"${UNPRINTABLE_CLASS}]`, 'gu');
  return `"${text.replace(escaped, (c) => {
    const short = SHORT_ESCAPES[c];
    if (short) return short;
    const code = c.codePointAt(0) ?? 0;
    if (code <= 0xff) return `\\x${code.toString(16).padStart(2, '0')}`;
    return code <= 0xffff
      ? `\\u${code.toString(16).padStart(4, '0')}`
      : `\\U${code.toString(16).padStart(8, '0')}`;
  })}"`;
}

/** A string as a YAML scalar: plain when it reads back as the same string, quoted otherwise. */
export function yamlString(text: string): string {
  needsEscapes ??= new RegExp(`[\\\\${UNPRINTABLE_CLASS}]`, 'u');
  if (text === '' || needsEscapes.test(text) || NOT_A_STRING.some((re) => re.test(text))) {
    return doubleQuoted(text);
  }
  if (
    INDICATOR_START.test(text) ||
    /\s$/.test(text) ||
    text.includes(': ') ||
    text.includes(' #') ||
    text.endsWith(':')
  ) {
    return `'${text.replaceAll("'", "''")}'`;
  }
  return text;
}

function scalar(value: unknown): string | undefined {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'boolean') return String(value);
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : 'null';
  if (typeof value === 'string') return yamlString(value);
  if (Object.keys(value as object).length === 0) return Array.isArray(value) ? '[]' : '{}';
  return undefined; // a non-empty list or mapping: a block
}

function block(value: unknown, indent: string, out: string[]): void {
  if (Array.isArray(value)) {
    for (const item of value) {
      const text = scalar(item);
      if (text !== undefined) {
        out.push(`${indent}- ${text}`);
        continue;
      }
      // A mapping's first key goes on the dash's line, the rest under it; a list nests below.
      const nested: string[] = [];
      block(item, `${indent}  `, nested);
      const first = nested[0] ?? '';
      out.push(`${indent}- ${first.slice(indent.length + 2)}`, ...nested.slice(1));
    }
    return;
  }
  for (const [key, item] of Object.entries(value as Record<string, unknown>)) {
    const text = scalar(item);
    if (text !== undefined) {
      out.push(`${indent}${yamlString(key)}: ${text}`);
    } else {
      out.push(`${indent}${yamlString(key)}:`);
      // kubectl's style: a list's items at its key's indent, a mapping's two spaces in.
      block(item, Array.isArray(item) ? indent : `${indent}  `, out);
    }
  }
}

/** A JSON value (objects, arrays, strings, numbers, booleans, null) as a YAML document. */
export function toYaml(value: unknown): string {
  const text = scalar(value);
  if (text !== undefined) return text;
  const out: string[] = [];
  block(value, '', out);
  return out.join('\n');
}
