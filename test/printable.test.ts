/**
 * One set of unprintable characters (lambda/core/printable.ts), kept from the reader by every
 * output of untrusted text: the CLI's table, its JSON and its YAML, an email's subject and body.
 *
 * Table-driven: each character that terminal-injection and Trojan-Source guidance names is in the
 * set; then every character of the set (all of U+0000–U+10FFFF that it holds, lone surrogates
 * included) goes through each output, in chunks, and none comes out raw. Each chunk is also seen
 * to arrive whole (escaped, or dropped from between two markers), so that a cut cannot pass for a
 * clean output; the characters the guidance names also go through a node's name, and read back
 * from the JSON and the YAML as the same strings.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parse } from 'yaml';
import { renderTable, toJson } from '../cli/report.js';
import { printableJson } from '../cli/sanitize.js';
import { toYaml } from '../cli/yaml.js';
import { renderBody, renderSubject } from '../lambda/adapters/notify/render/render.js';
import { evaluate } from '../lambda/core/evaluate.js';
import { hasUnprintable, UNPRINTABLE_CLASS } from '../lambda/core/printable.js';
import { DEFAULT_POLICY } from '../lambda/settings/index.js';
import { lease, node, snapshot, T0 } from '../testkit/builders.js';
import { alertNode, notification } from '../testkit/notifications.js';

/** True when `char` (one code point, or one lone surrogate) is in the set. */
const isUnprintable = (char: string) => hasUnprintable(char);

function range(from: number, to: number): number[] {
  return Array.from({ length: to - from + 1 }, (_, i) => from + i);
}

/** What the guidance names, each row a reason the set exists. */
const NAMED: ReadonlyArray<readonly [string, readonly number[]]> = [
  ['C0 controls: ESC (every escape sequence), CR and LF (forged lines), BEL, BS', range(0, 0x1f)],
  ['DEL', [0x7f]],
  ['C1 controls: 8-bit CSI, OSC, DCS and ST, NEL', range(0x80, 0x9f)],
  ['bidi embeddings and overrides LRE, RLE, PDF, LRO, RLO (Trojan Source)', range(0x202a, 0x202e)],
  ['bidi isolates LRI, RLI, FSI, PDI (Trojan Source)', range(0x2066, 0x2069)],
  ['zero-width space, non-joiner and joiner; LRM and RLM', range(0x200b, 0x200f)],
  ['Arabic letter mark', [0x61c]],
  ['line and paragraph separators', [0x2028, 0x2029]],
  ['byte order mark (zero-width no-break space)', [0xfeff]],
  ['word joiner and invisible operators', range(0x2060, 0x2064)],
  ['soft hyphen', [0xad]],
  ['Hangul fillers (blank-looking letters)', [0x115f, 0x1160, 0x3164, 0xffa0]],
  ['variation selectors', [...range(0xfe00, 0xfe0f), ...range(0xe0100, 0xe01ef)]],
  ['tag characters (invisible ASCII)', [0xe0001, ...range(0xe0020, 0xe007f)]],
  ['interlinear annotation', range(0xfff9, 0xfffb)],
  ['noncharacters', [...range(0xfdd0, 0xfdef), 0xfffe, 0xffff, 0x1fffe, 0x10ffff]],
  // Low before high: a high surrogate before a low one would join it into one character.
  ['lone surrogates', [0xdc00, 0xdfff, 0xd800, 0xdbff]],
  ['private use', [0xe000, 0xf8ff, 0xf0000, 0x10fffd]],
];

/** Printable text that no output may touch. */
const PRINTABLE = ['a', 'Z', '~', ' ', 'é', 'ß', 'ノ', '✓', '😀', '\u00a0', '\u3000', '\u0301'];

/** Every character of the set, in code point order. */
const SET = range(0, 0x10ffff)
  .map((cp) => String.fromCodePoint(cp))
  .filter(isUnprintable);

const LONE_SURROGATE = /^[\ud800-\udfff]$/;

/**
 * The set in chunks of at most `size` characters. A chunk holds at most 40 lone surrogates (an
 * email shows each as U+FFFD, and a zone must stay short enough to be shown whole), and never puts
 * a lone high surrogate before a lone low one: the two would join into one character.
 */
function chunks(size: number): string[][] {
  const out: string[][] = [];
  let chunk: string[] = [];
  let lone = 0;
  for (const c of SET) {
    const last = chunk.at(-1) ?? '';
    const pairs = /^[\ud800-\udbff]$/.test(last) && /^[\udc00-\udfff]$/.test(c);
    if (chunk.length === size || lone === 40 || pairs) {
      out.push(chunk);
      chunk = [];
      lone = 0;
    }
    chunk.push(c);
    if (LONE_SURROGATE.test(c)) lone++;
  }
  out.push(chunk);
  return out;
}
const CHUNKS = chunks(20_000);
/** The characters the guidance names, each once, in order. */
const NAMED_SET = [...new Set(NAMED.flatMap(([, codes]) => codes))].map((cp) =>
  String.fromCodePoint(cp),
);

function hex(c: string): string {
  return `U+${(c.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`;
}

const UNPRINTABLE = new RegExp(`[${UNPRINTABLE_CLASS}]`, 'gu');

/** The characters of the set found raw in a line of the output, named. */
function raw(output: string): string[] {
  return output.split('\n').flatMap((line) => (line.match(UNPRINTABLE) ?? []).map(hex));
}

/** The CLI's escape of a character: `\x1b` up to U+00FF, `\u{202e}` beyond. */
function cliEscape(c: string): string {
  const code = c.codePointAt(0) ?? 0;
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u{${code.toString(16)}}`;
}

const YAML_SHORT: Readonly<Record<string, string>> = {
  '\0': '\\0',
  '\t': '\\t',
  '\n': '\\n',
  '\r': '\\r',
};

/** YAML's escape of a character in a double-quoted scalar: `\n`, `\x1b`, `\u202e`, `\U000e0001`. */
function yamlEscape(c: string): string {
  const code = c.codePointAt(0) ?? 0;
  if (YAML_SHORT[c]) return YAML_SHORT[c];
  if (code <= 0xff) return `\\x${code.toString(16).padStart(2, '0')}`;
  if (code <= 0xffff) return `\\u${code.toString(16).padStart(4, '0')}`;
  return `\\U${code.toString(16).padStart(8, '0')}`;
}

interface Facts {
  readonly name: string;
  readonly zone: string;
  readonly reason: string;
}

/** A check as the CLI's `check` sees it, of Ready=False nodes with these facts. */
function evaluation(nodes: readonly Facts[]) {
  return evaluate(
    snapshot({
      leases: nodes.map((n) => lease(n.name)),
      nodes: nodes.map((n) =>
        node(n.name, { zone: n.zone, ready: 'False', readyReason: n.reason }),
      ),
    }),
    new Map(),
    DEFAULT_POLICY,
    { now: T0 },
  );
}

/** The whole set: one node per chunk, its characters in the node's Ready reason (never cut). */
const ALL = evaluation(
  CHUNKS.map((chunk, i) => ({
    name: `node-${i}`,
    zone: 'eu-west-1a',
    reason: `r${chunk.join('')}`,
  })),
);
/**
 * The named characters: one node per character, in its name, zone and Ready reason (a name is
 * cut at 253 characters, so a chunk could not go through it whole).
 */
const NAMED_NODES = evaluation(
  NAMED_SET.map((c, i) => ({ name: `n${i}${c}`, zone: `z${c}`, reason: `r${c}` })),
);

/**
 * An email about a chunk of characters: between markers in the cluster's name and the node's
 * reason, and with `everywhere`, in the node's name and zone too.
 */
function email(chunk: readonly string[], everywhere = false) {
  const text = chunk.join('');
  const facts = everywhere
    ? { name: `n${text}m`, zone: `z${text}y` }
    : { name: 'node-1', zone: 'a' };
  return notification({
    cluster: `c${text}d`,
    firing: [alertNode(facts.name, { zone: facts.zone, reason: `r${text}s` })],
  });
}

/**
 * What an email shows of a chunk between two markers: nothing, but a space for a line break (or
 * other whitespace), runs of spaces squeezed, and U+FFFD for a lone surrogate.
 */
function inEmail(before: string, chunk: readonly string[], after: string): string {
  const shown = chunk.map((c) => (/\s/.test(c) ? ' ' : LONE_SURROGATE.test(c) ? '\ufffd' : ''));
  return `${before}${shown.join('')}${after}`.replace(/ {2,}/g, ' ');
}

/** The same in a subject's printable ASCII: a run of U+FFFD is one `?`. */
function inSubject(before: string, chunk: readonly string[], after: string): string {
  return inEmail(before, chunk, after).replace(/\ufffd+/g, '?');
}

/** The body's lines that carry a chunk: each as `inEmail` says, or a message naming the one missing. */
function missingLines(body: string, chunk: readonly string[], everywhere: boolean): string[] {
  const lines = new Set(body.split('\n'));
  const expected = [
    `Cluster:         ${inEmail('c', chunk, 'd')}`,
    `  reason:        ${inEmail('r', chunk, 's')}`,
    ...(everywhere
      ? [inEmail('n', chunk, 'm'), `  zone:          ${inEmail('z', chunk, 'y')}`]
      : []),
  ];
  return expected.filter((line) => !lines.has(line)).map((line) => JSON.stringify(line));
}

describe('the unprintable set', () => {
  for (const [what, codes] of NAMED) {
    it(`holds ${what}`, () => {
      const missing = codes.map((cp) => String.fromCodePoint(cp)).filter((c) => !isUnprintable(c));
      assert.deepEqual(missing.map(hex), []);
    });
  }

  it('leaves printable text alone', () => {
    assert.deepEqual(PRINTABLE.filter(isUnprintable).map(hex), []);
    assert.equal(hasUnprintable(PRINTABLE.join('')), false);
    assert.equal(hasUnprintable('ok\u202e'), true);
  });

  it('is enumerated whole: every plane, lone surrogates included', () => {
    assert.ok(SET.length > 900_000, `${SET.length} characters`);
    assert.equal(SET.filter((c) => LONE_SURROGATE.test(c)).length, 0x800);
    assert.equal(CHUNKS.flat().length, SET.length);
  });
});

describe('no character of the set comes out raw', () => {
  it('the CLI table: each one escaped, in reasons; the named ones in names and zones too', () => {
    const table = renderTable(ALL, { wide: true });
    assert.deepEqual(raw(table), []);
    const rows = table.split('\n');
    for (const [i, chunk] of CHUNKS.entries()) {
      const row = rows.find((r) => r.startsWith(`node-${i} `)) ?? '';
      const shown = chunk.map(cliEscape).join('');
      assert.ok(row.includes(`(r${shown})`), `from ${hex(chunk[0] ?? '')} in a reason`);
    }
    const named = renderTable(NAMED_NODES, { wide: true });
    assert.deepEqual(raw(named), []);
    for (const [i, c] of NAMED_SET.entries()) {
      const row = named.split('\n').find((r) => r.startsWith(`"n${i}${cliEscape(c)}" `));
      assert.ok(row?.includes(` z${cliEscape(c)} `), `${hex(c)} in a name and a zone`);
      assert.ok(row?.includes(`(r${cliEscape(c)})`), `${hex(c)} in a reason`);
    }
  });

  it('-o json: each one escaped as \\uXXXX, and the same strings read back', () => {
    for (const evaluated of [ALL, NAMED_NODES]) {
      const document = toJson(evaluated);
      const json = printableJson(JSON.stringify(document, null, 2));
      assert.deepEqual(raw(json), []);
      assert.deepEqual(JSON.parse(json), JSON.parse(JSON.stringify(document)));
    }
  });

  it('-o yaml: each one escaped in double quotes; the named ones read back (YAML 1.1 and 1.2)', () => {
    const yaml = toYaml(toJson(ALL));
    assert.deepEqual(raw(yaml), []);
    const reasons = yaml.split('\n').filter((line) => line.startsWith('  reason: '));
    for (const chunk of CHUNKS) {
      const shown = `(r${chunk.map(yamlEscape).join('')})`;
      assert.ok(
        reasons.some((line) => line.includes(shown)),
        `from ${hex(chunk[0] ?? '')} in a reason`,
      );
    }
    // The parser is slow on megabytes of escapes: the read-back runs on the named characters.
    const document = toJson(NAMED_NODES);
    const text = toYaml(document);
    assert.deepEqual(raw(text), []);
    for (const version of ['1.1', '1.2'] as const) {
      assert.deepEqual(parse(text, { version }), JSON.parse(JSON.stringify(document)), version);
    }
  });

  it("the email subject: printable ASCII, each one dropped from the cluster's name", () => {
    // A lone surrogate is not dropped silently: it reads as U+FFFD, `?` in ASCII.
    for (const chunk of CHUNKS) {
      const subject = renderSubject(email(chunk));
      const expected = `[${inSubject('c', chunk, 'd')}] FIRING: 1 node down (node-1)`;
      assert.equal(subject, expected, hex(chunk[0] ?? ''));
    }
    const named = renderSubject(email(NAMED_SET, true));
    const expected = `[${inSubject('c', NAMED_SET, 'd')}] FIRING: 1 node down (${inSubject('n', NAMED_SET, 'm')})`;
    assert.equal(named, expected);
  });

  it('the email body: each one dropped, the text around it kept', () => {
    for (const chunk of CHUNKS) {
      const body = renderBody(email(chunk));
      assert.deepEqual(raw(body), [], `from ${hex(chunk[0] ?? '')}`);
      assert.deepEqual(missingLines(body, chunk, false), [], `from ${hex(chunk[0] ?? '')}`);
    }
    const named = renderBody(email(NAMED_SET, true));
    assert.deepEqual(raw(named), []);
    assert.deepEqual(missingLines(named, NAMED_SET, true), []);
  });

  it('an email keeps the joiners inside an emoji, and only there', () => {
    const emoji = ['👨\u200d👩\u200d👧', '🏳\ufe0f\u200d🌈', '👩🏽\u200d💻', '❤\ufe0f'];
    const body = renderBody(email([` ${emoji.join(' ')} a\u200db\ufe0f`], true));
    assert.match(body, new RegExp(`^n ${emoji.join(' ')} abm$`, 'mu'));
    const table = renderTable(evaluation([{ name: 'a', zone: 'b', reason: '👨\u200d👩' }]));
    assert.ok(table.includes('👨\\u{200d}👩'), 'the CLI escapes them all the same');
  });
});
