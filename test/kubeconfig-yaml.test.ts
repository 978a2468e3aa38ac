/**
 * The kubeconfig reader without a YAML library (lambda/adapters/kube/config/kubeconfig-yaml.ts) returns,
 * whenever it returns anything, what js-yaml's `load` returns: over kubeconfigs kubectl wrote,
 * the simulated cluster's, hostile texts, and generated documents with YAML's traps in them.
 * Every kubeconfig kubectl writes in ASCII is read by it (else the command's start pays js-yaml).
 */

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { load } from 'js-yaml';
import { KubeConfig } from '../lambda/adapters/kube/config/kube-config.js';
import { readPlainKubeconfig } from '../lambda/adapters/kube/config/kubeconfig-yaml.js';
import { renderKubeconfig } from '../sim/kubeconfig.js';

/** What kubectl v1.32 wrote for `kubectl config set-cluster/set-credentials/set-context …`. */
const KUBECTL_WRITTEN = `apiVersion: v1
clusters:
- cluster:
    certificate-authority-data: LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUJnakNDQVNtZ0F3SUJBZ0lRUWV3K3huQ2FHTjkzRkhCcnl5NFovekFLQmdncWhrak9QUVFEQWpBZ01SNHcK
    server: https://ABCDEF0123456789.gr7.eu-west-1.eks.amazonaws.com
  name: eks
- cluster:
    insecure-skip-tls-verify: true
    proxy-url: http://proxy.example.com:3128
    server: https://1.2.3.4
    tls-server-name: api.example.com
  name: insecure
- cluster:
    certificate-authority: ca.crt
    server: https://10.0.0.1:6443
  name: prod
contexts:
- context:
    cluster: prod
    user: admin
  name: "123"
- context:
    cluster: prod
    user: admin
  name: 'a: b #c'
- context:
    cluster: eks
    user: eks-user
  name: eks
- context:
    cluster: prod
    namespace: kube-system
    user: admin
  name: prod
- context:
    cluster: prod
    user: admin
  name: "true"
- context:
    cluster: prod
    user: admin
  name: weird name
current-context: prod
kind: Config
preferences: {}
users:
- name: admin
  user:
    token: 4RnC_aUYgPGVGaRCvA7W8VfGA8TJ9gcF
- name: basic
  user:
    password: 'p@ss:w0rd #1'
    username: admin
- name: certs
  user:
    client-certificate: c.crt
    client-key: c.key
- name: eks-user
  user:
    exec:
      apiVersion: client.authentication.k8s.io/v1beta1
      args:
      - --region
      - eu-west-1
      - eks
      - get-token
      - --cluster-name
      - prod
      command: aws
      env:
      - name: AWS_PROFILE
        value: ops
      interactiveMode: Never
      provideClusterInfo: false
- name: oidc
  user:
    auth-provider:
      config:
        client-id: kube
        idp-issuer-url: https://issuer.example.com
      name: oidc
`;

/** minikube's, with its extensions (a date in words, a version). */
const MINIKUBE = `apiVersion: v1
clusters:
- cluster:
    certificate-authority: /home/me/.minikube/ca.crt
    extensions:
    - extension:
        last-update: Wed, 14 Feb 2024 10:00:00 CET
        provider: minikube.sigs.k8s.io
        version: v1.32.0
      name: cluster_info
    server: https://192.168.49.2:8443
  name: minikube
contexts:
- context:
    cluster: minikube
    namespace: default
    user: minikube
  name: minikube
current-context: minikube
kind: Config
preferences: {}
users:
- name: minikube
  user:
    client-certificate: /home/me/.minikube/profiles/minikube/client.crt
    client-key: /home/me/.minikube/profiles/minikube/client.key
`;

/** The simulated cluster's, with and without a CA (the latter has an empty line). */
const SIM = [true, false].map((withCa) =>
  renderKubeconfig({
    server: 'https://127.0.0.1:6443',
    caPem: '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n',
    token: 'abcdefghijklmnop0123456789',
    opts: { withCa },
  }),
);

/** Texts the reader must leave to js-yaml (each is read differently, or refused, by YAML). */
const LEFT_TO_JS_YAML: readonly string[] = [
  'a: 1\na: 2\n', // duplicate key: js-yaml refuses it
  'a: &x b\nc: *x\n',
  'a: !!str 1\n',
  '# a comment\na: b\n',
  'a: b # trailing comment\n',
  'a: |\n  text\n',
  'a: >\n  text\n',
  'a: b\n  c\n', // a plain scalar on two lines: "b c"
  'a:\tb\n',
  'a: b\r\nc: d\r\n',
  '---\na: b\n',
  'a: "b\\nc"\n',
  "a: 'it''s'\n",
  'a: Null\nb: TRUE\n',
  'a: ~\n',
  'a: .inf\n',
  'a: -.inf\n',
  'a: 0x1F\n',
  'a: 012\n',
  'a: 1e3\n',
  'a: -5\n',
  'a: 1_000\n',
  'a: 2024-01-01\n',
  'a: 1:20\n',
  'a: [b, c]\n',
  'a: {b: c}\n',
  'a: \n',
  'a:  b\n',
  'a: b:\n',
  'a: b: c\n',
  'a:\n  b: c\n    d: e\n',
  '- a\n',
  '  a: b\n',
  'a:\n  - b\n   c: d\n',
  'true: a\n',
  '__proto__: a\n',
  'a: ümlaut\n',
  'a:\n    \nb: c\n',
  'a: -\n',
  'a: "b\n',
  'a: @b\n',
  `${'a:\n'.repeat(1)}${Array.from({ length: 40 }, (_, i) => `${' '.repeat(2 * (i + 1))}k:`).join('\n')}\n`,
  '',
  '\n\n',
];

/** The reader's answer, which must be js-yaml's whenever it gives one. */
function agrees(text: string): boolean {
  const plain = readPlainKubeconfig(text);
  if (plain === undefined) return true;
  assert.deepEqual(plain, load(text), `read differently from js-yaml:\n${text}`);
  return true;
}

describe('kubeconfig YAML without js-yaml', () => {
  it('reads what kubectl, minikube and the simulated cluster write, as js-yaml does', () => {
    for (const text of [KUBECTL_WRITTEN, MINIKUBE, ...SIM]) {
      const plain = readPlainKubeconfig(text);
      assert.notEqual(plain, undefined, `left to js-yaml:\n${text}`);
      assert.deepEqual(plain, load(text));
    }
  });

  it('leaves to js-yaml what YAML reads differently or refuses', () => {
    for (const text of LEFT_TO_JS_YAML) {
      assert.equal(readPlainKubeconfig(text), undefined, `read without js-yaml:\n${text}`);
    }
  });

  it('KubeConfig reads the same entries either way, and js-yaml still words a broken file', () => {
    const ours = new KubeConfig();
    ours.loadFromString(KUBECTL_WRITTEN);
    const viaJsYaml = new KubeConfig();
    // A comment line sends the same document to js-yaml.
    viaJsYaml.loadFromString(`# kubectl\n${KUBECTL_WRITTEN}`);
    assert.deepEqual(ours, viaJsYaml);
    assert.equal(ours.getCurrentUser()?.token, '4RnC_aUYgPGVGaRCvA7W8VfGA8TJ9gcF');
    assert.throws(() => new KubeConfig().loadFromString('a: 1\na: 2\n'), /duplicated mapping key/);
  });

  it('agrees with js-yaml on generated documents, traps included', () => {
    fc.assert(fc.property(DOCUMENT, agrees), { numRuns: 3_000, seed: 20_261_202 });
  });
});

/** Keys and scalars as kubeconfigs have them, with YAML's traps among them (1 in 25). */
const KEY = fc.oneof(
  {
    arbitrary: fc.constantFrom('name', 'server', 'user', 'token', 'cluster', 'a.b', 'x-y_z'),
    weight: 24,
  },
  {
    arbitrary: fc.constantFrom(
      'name',
      'server',
      'user',
      'token',
      'a.b',
      'x-y_z',
      'true',
      'Null',
      'on',
      '__proto__',
      'constructor',
      'k:',
      '-',
      '"q"',
    ),
    weight: 1,
  },
);
const SAFE_SCALAR = fc.oneof(
  fc.stringMatching(/^[a-z][a-z0-9./:_-]{0,12}$/),
  fc.constantFrom('true', 'false', 'null', '{}', '[]', '0', '42', '"quoted: yes"', "'single'"),
);
const TRAP_SCALAR = fc.oneof(
  fc.constantFrom(
    'b',
    'https://h:6443/p?x=y&z',
    'LS0tLS1CRUdJTg==',
    '4RnC_aUYg',
    '--region',
    '-5',
    '-a',
    '0',
    '12',
    '012',
    '1e3',
    '0x1F',
    '1_0',
    '.5',
    '.inf',
    '+1',
    'null',
    'NULL',
    'true',
    'True',
    'yes',
    '~',
    '{}',
    '[]',
    '""',
    "''",
    '"a: b #c"',
    "'x''y'",
    '"a\\"b"',
    'a b',
    'a: b',
    'a #b',
    'a#b',
    'a:b',
    'a:',
    '2024-01-01',
    '1:20',
    'Wed, 14 Feb 2024 10:00:00 CET',
    '&a b',
    '*a',
    '!t b',
    '|',
    '>',
    '%x',
    '@x',
    '`x',
    '(x)',
    'x ',
  ),
  fc.stringMatching(/^[ -~]{0,12}$/),
);
const SCALAR = fc.oneof(
  { arbitrary: SAFE_SCALAR, weight: 24 },
  { arbitrary: TRAP_SCALAR, weight: 1 },
);

interface Tree {
  readonly kind: 'map' | 'seq' | 'scalar';
  readonly entries?: readonly [string, Tree][];
  readonly items?: readonly Tree[];
  readonly text?: string;
}

const TREE: fc.Arbitrary<Tree> = fc.letrec<{ tree: Tree }>((tie) => ({
  tree: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    SCALAR.map((text) => ({ kind: 'scalar' as const, text })),
    fc
      .uniqueArray(fc.tuple(KEY, tie('tree')), { minLength: 1, maxLength: 4, selector: ([k]) => k })
      .map((entries) => ({ kind: 'map' as const, entries })),
    fc
      .array(tie('tree'), { minLength: 1, maxLength: 3 })
      .map((items) => ({ kind: 'seq' as const, items })),
  ),
})).tree;

/** A tree in kubectl's layout (sequences at their key's indentation, `- ` then a mapping). */
function render(tree: Tree, indent: number): string[] {
  const pad = ' '.repeat(indent);
  if (tree.kind === 'map') {
    return (tree.entries ?? []).flatMap(([key, value]) =>
      value.kind === 'scalar'
        ? [`${pad}${key}: ${value.text}`]
        : [`${pad}${key}:`, ...render(value, value.kind === 'seq' ? indent : indent + 2)],
    );
  }
  if (tree.kind === 'seq') {
    return (tree.items ?? []).flatMap((item) => {
      const lines = item.kind === 'scalar' ? [`${pad}  ${item.text}`] : render(item, indent + 2);
      const [first = '', ...rest] = lines;
      return [`${pad}- ${first.slice(indent + 2)}`, ...rest];
    });
  }
  return [`${pad}${tree.text}`];
}

/** A rendered top-level mapping, then a few lines moved in or out, doubled, emptied or dropped. */
const DOCUMENT = fc
  .tuple(
    fc.uniqueArray(fc.tuple(KEY, TREE), { minLength: 1, maxLength: 4, selector: ([k]) => k }),
    fc.oneof(
      { arbitrary: fc.constant([]), weight: 2 },
      {
        arbitrary: fc.array(
          fc.tuple(
            fc.nat(),
            fc.constantFrom('indent', 'outdent', 'double', 'empty', 'drop', 'tab'),
          ),
          { minLength: 1, maxLength: 2 },
        ),
        weight: 1,
      },
    ),
    fc.boolean(),
  )
  .map(([entries, edits, newline]) => {
    const lines = render({ kind: 'map', entries }, 0);
    for (const [at, edit] of edits) {
      if (lines.length === 0) break;
      const i = at % lines.length;
      const line = lines[i] as string;
      if (edit === 'indent') lines[i] = ` ${line}`;
      else if (edit === 'outdent') lines[i] = line.replace(/^ /, '');
      else if (edit === 'double') lines.splice(i, 0, line);
      else if (edit === 'empty') lines.splice(i, 0, '');
      else if (edit === 'drop') lines.splice(i, 1);
      else lines[i] = line.replace(' ', '\t');
    }
    return lines.join('\n') + (newline ? '\n' : '');
  });
