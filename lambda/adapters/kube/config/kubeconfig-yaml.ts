/**
 * The YAML of a kubeconfig as kubectl writes it, read without a YAML library: block mappings and
 * sequences indented by spaces, keys that are plain words, and values that are plain or quoted
 * one-line strings, `true`, `false`, `null`, small integers, `{}` and `[]`. Loading js-yaml and
 * running it cold is most of the time a command spends on its kubeconfig (docs/BENCHMARKS.md).
 *
 * Strict: whatever it returns is what js-yaml's `load` returns for the same text
 * (test/kubeconfig-yaml.test.ts holds them equal over kubeconfigs, hostile ones included, and
 * generated documents). Anything else (comments, anchors, tags, block or multi-line scalars,
 * escapes, duplicate keys, tabs, non-ASCII, an unexpected indentation, a word that YAML may read
 * as something else than a string) makes it return undefined, and the caller hands the text to
 * js-yaml, which reads it or says what is wrong with it.
 */

/** One line: its indentation (spaces) and what follows it. */
interface Lines {
  readonly indent: number[];
  readonly content: string[];
}

/** Thrown inside the reader when the text leaves the subset; never escapes it. */
class NotPlain extends Error {}

/** Printable ASCII and line feeds, nothing else. */
const PLAIN_TEXT = /^[\x20-\x7e\n]*$/;
/** `key:` or `key: value` (exactly one space), the key a word. */
const KEY_LINE = /^([A-Za-z_][A-Za-z0-9_.-]*):(?: (.*))?$/;
/** Keys YAML would read as null or a boolean, and the one js-yaml sets differently. */
const SPECIAL_KEY = /^(?:true|false|null|__proto__)$/i;
/** The characters of a plain scalar this reader accepts (its first one is checked apart). */
const PLAIN_CHARS = /^[A-Za-z0-9 ._\-/:=+@%,~()?&]*$/;
/** A plain scalar that may be a number, a date or a special float: only these characters. */
const NUMERIC_CHARS = /^[0-9a-fA-FxXoOtTzZ_.:+\- ]*$/;
/** Nested deeper than any kubeconfig: left to js-yaml. */
const MAX_DEPTH = 32;

/**
 * The document, when `text` is a kubeconfig in the subset this reader knows; undefined for
 * anything else (then js-yaml's `load` reads it).
 */
export function readPlainKubeconfig(text: string): Record<string, unknown> | undefined {
  if (!PLAIN_TEXT.test(text)) return undefined;
  const lines: Lines = { indent: [], content: [] };
  for (const line of text.split('\n')) {
    // An empty line between entries means nothing; one of spaces alone is left to js-yaml.
    if (line === '') continue;
    const content = line.trimStart();
    if (content === '') return undefined;
    lines.indent.push(line.length - content.length);
    lines.content.push(content);
  }
  if (lines.indent[0] !== 0) return undefined;
  try {
    const { value, next } = mapping(lines, 0, 0, 0);
    return next === lines.content.length ? value : undefined;
  } catch (error) {
    if (error instanceof NotPlain) return undefined;
    throw error;
  }
}

/**
 * The block mapping whose keys are at `indent`, from line `at`; `next` is the line after it. A
 * line indented deeper than expected ends every level: the document is then not read whole.
 */
function mapping(
  lines: Lines,
  at: number,
  indent: number,
  depth: number,
): { value: Record<string, unknown>; next: number } {
  if (depth > MAX_DEPTH) throw new NotPlain();
  const value: Record<string, unknown> = {};
  let i = at;
  while (i < lines.content.length && lines.indent[i] === indent) {
    const key = KEY_LINE.exec(lines.content[i] as string);
    if (!key || SPECIAL_KEY.test(key[1] as string) || Object.hasOwn(value, key[1] as string)) {
      throw new NotPlain();
    }
    const [, name, scalarText] = key as unknown as [string, string, string | undefined];
    if (scalarText !== undefined) {
      value[name] = scalar(scalarText);
      i++;
    } else {
      const nested = blockValue(lines, i + 1, indent, depth);
      value[name] = nested.value;
      i = nested.next;
    }
  }
  return { value, next: i };
}

/** What follows `key:` at `indent` on its own line: a mapping, a sequence, or nothing (null). */
function blockValue(
  lines: Lines,
  at: number,
  indent: number,
  depth: number,
): { value: unknown; next: number } {
  if (at >= lines.content.length) return { value: null, next: at };
  const next = lines.indent[at] as number;
  const content = lines.content[at] as string;
  if (content.startsWith('- ') && next >= indent) return sequence(lines, at, next, depth + 1);
  if (next <= indent) return { value: null, next: at };
  if (KEY_LINE.test(content)) return mapping(lines, at, next, depth + 1);
  throw new NotPlain();
}

/** The block sequence whose `- ` are at `indent`, from line `at`. */
function sequence(
  lines: Lines,
  at: number,
  indent: number,
  depth: number,
): { value: unknown[]; next: number } {
  if (depth > MAX_DEPTH) throw new NotPlain();
  const value: unknown[] = [];
  let i = at;
  while (i < lines.content.length && lines.indent[i] === indent) {
    const content = lines.content[i] as string;
    if (!content.startsWith('- ')) break;
    const item = content.slice(2);
    if (KEY_LINE.test(item)) {
      // `- key: value`: a mapping whose keys are two columns in, this line's first.
      lines.indent[i] = indent + 2;
      lines.content[i] = item;
      const nested = mapping(lines, i, indent + 2, depth + 1);
      value.push(nested.value);
      i = nested.next;
    } else {
      value.push(scalar(item));
      i++;
    }
  }
  return { value, next: i };
}

/** A one-line value: quoted, a literal this reader knows, or a plain string. */
function scalar(text: string): unknown {
  const first = text[0];
  if (first === '"' || first === "'") {
    if (text.length < 2 || text.at(-1) !== first) throw new NotPlain();
    const inner = text.slice(1, -1);
    if (inner.includes(first) || (first === '"' && inner.includes('\\'))) throw new NotPlain();
    return inner;
  }
  switch (text) {
    case 'null':
      return null;
    case 'true':
      return true;
    case 'false':
      return false;
    case '{}':
      return {};
    case '[]':
      return [];
  }
  if (/^(?:0|[1-9][0-9]{0,14})$/.test(text)) return Number(text);
  if (!plainString(text)) throw new NotPlain();
  return text;
}

/** Whether YAML reads `text`, unquoted, as this very string. */
function plainString(text: string): boolean {
  if (text === '' || !PLAIN_CHARS.test(text) || text.endsWith(' ') || text.endsWith(':')) {
    return false;
  }
  if (text.includes(': ') || text.includes(' #')) return false;
  if (/^[A-Za-z_/]/.test(text)) return !/^(?:true|false|null)$/i.test(text);
  // A digit or a dash first (not a dash before a space: a sequence; not `.` or `+`: `.inf`):
  // numbers and dates are made of few characters, and one outside them makes a string.
  return /^(?:[0-9]|-[0-9A-Za-z_-])/.test(text) && !NUMERIC_CHARS.test(text);
}
