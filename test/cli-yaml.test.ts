/**
 * The YAML of `-o yaml`: kubectl's layout, and hostile strings from the cluster that a YAML parser
 * (the `yaml` package, under YAML 1.1 and 1.2) reads back exactly, with nothing raw on a terminal.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parse } from 'yaml';
import { toYaml, yamlString } from '../cli/yaml.js';

const HOSTILE = [
  '',
  ' ',
  'yes',
  'No',
  'on',
  'y',
  'null',
  '~',
  'true',
  '1e3',
  '0x1F',
  '0o17',
  '017',
  '1_000',
  '12:30',
  '-1.5',
  '.inf',
  '.NaN',
  '2026-11-29',
  '2026-11-29T17:52:14.065888Z',
  '<<',
  '=',
  '- leading dash',
  '-',
  '? question',
  ': colon',
  'key: value',
  'ends with colon:',
  'hash # comment',
  '#hash',
  '&anchor',
  '*alias',
  '!tag',
  '|literal',
  '>folded',
  "'single'",
  '"double"',
  'it\'s "quoted" inside',
  '%directive',
  '@at',
  '`backtick',
  '[flow]',
  '{flow}',
  ',comma',
  'trailing space ',
  'line\nbreak',
  'carriage\rreturn',
  'tab\there',
  'escape \u001b[2J cleared',
  'bell\u0007',
  'nul\u0000',
  'del\u007f',
  'c1 \u0085 next line',
  'separator \u2028 and \u2029',
  'bidi \u202e override \u2066',
  '\ufeffbom',
  'back\\slash \\x1b',
  'ünïcödé ✓ 😀',
  'plain-name.eu-west-1.compute.internal',
];

// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
const RAW = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069\ufeff]/;

describe('-o yaml: the emitter', () => {
  for (const text of HOSTILE) {
    it(`reads back ${JSON.stringify(text)} as the same string`, () => {
      const document = toYaml({ value: text, list: [text], nested: { [text || 'k']: text } });
      for (const version of ['1.1', '1.2'] as const) {
        assert.deepEqual(
          parse(document, { version }),
          { value: text, list: [text], nested: { [text || 'k']: text } },
          `YAML ${version}:\n${document}`,
        );
      }
      assert.doesNotMatch(document, RAW, 'nothing raw reaches a terminal');
      assert.equal(document.split('\n').length, 5, 'each string on one line');
    });
  }

  it('quotes only when needed, the way kubectl does', () => {
    assert.equal(
      yamlString('ip-10-0-1-11.eu-west-1.compute.internal'),
      'ip-10-0-1-11.eu-west-1.compute.internal',
    );
    assert.equal(yamlString('renewed 9s ago'), 'renewed 9s ago');
    assert.equal(yamlString('2026-11-29T17:52:14.065888Z'), '"2026-11-29T17:52:14.065888Z"');
    assert.equal(yamlString('yes'), '"yes"');
    assert.equal(yamlString('1e3'), '"1e3"');
    assert.equal(yamlString(''), '""');
    assert.equal(yamlString('- a'), "'- a'");
    assert.equal(yamlString('a: b'), "'a: b'");
    assert.equal(yamlString("it's"), "it's");
    assert.equal(yamlString('line\nbreak'), '"line\\nbreak"');
    assert.equal(yamlString('\u001b[2J'), '"\\x1b[2J"');
  });

  it("lays a document out as kubectl does: block style, 2 spaces, a list's items at its key's indent", () => {
    const document = toYaml({
      cluster: 'prod',
      degraded: null,
      nodes: [
        { name: 'a', leaseDurationSeconds: 40, zone: null, tags: ['x', 'z'] },
        { name: 'b', ok: true },
      ],
      empty: [],
      none: {},
      summary: { healthy: 1, 'not-ready': 0 },
    });
    assert.equal(
      document,
      [
        'cluster: prod',
        'degraded: null',
        'nodes:',
        '- name: a',
        '  leaseDurationSeconds: 40',
        '  zone: null',
        '  tags:',
        '  - x',
        '  - z',
        '- name: b',
        '  ok: true',
        'empty: []',
        'none: {}',
        'summary:',
        '  healthy: 1',
        '  not-ready: 0',
      ].join('\n'),
    );
  });
});
