/**
 * deploy/rbac.yaml grants get/list on Leases in kube-node-lease, on Nodes, and on Events in default
 * (node events, for a FIRING's evidence), and nothing more: no namespace, account or token, which
 * only token mode needs (deploy/token.yaml).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { parseAllDocuments } from 'yaml';
import { KUBERNETES_GROUP } from '../infra/lease-watchdog.js';

interface Doc {
  apiVersion: string;
  kind: string;
  type?: string;
  metadata: { name: string; namespace?: string; annotations?: Record<string, string> };
  rules?: { apiGroups: string[]; resources: string[]; verbs: string[]; resourceNames?: string[] }[];
  roleRef?: { apiGroup: string; kind: string; name: string };
  subjects?: { kind: string; name: string; namespace?: string; apiGroup?: string }[];
  automountServiceAccountToken?: boolean;
}

function manifest(file: string): Doc[] {
  const text = readFileSync(new URL(`../deploy/${file}`, import.meta.url), 'utf8');
  return parseAllDocuments(text).map((d) => {
    assert.deepEqual(d.errors, []);
    return d.toJS() as Doc;
  });
}
const docs = manifest('rbac.yaml');
const tokenDocs = manifest('token.yaml');
const byKind = (kind: string) => [...docs, ...tokenDocs].filter((d) => d.kind === kind);
const names = (list: Doc[]) =>
  list.map((d) => `${d.kind} ${d.metadata.namespace ?? '-'}/${d.metadata.name}`);
const subjects = [
  { apiGroup: 'rbac.authorization.k8s.io', kind: 'Group', name: KUBERNETES_GROUP },
  { kind: 'ServiceAccount', name: 'lease-watchdog', namespace: 'lease-watchdog' },
];

test('rbac.yaml holds the RBAC alone; token.yaml the namespace, account and token of token mode', () => {
  assert.deepEqual(names(tokenDocs), [
    'Namespace -/lease-watchdog',
    'ServiceAccount lease-watchdog/lease-watchdog',
    'Secret lease-watchdog/lease-watchdog-token',
  ]);
  assert.deepEqual(names(docs), [
    'Role kube-node-lease/lease-watchdog',
    'RoleBinding kube-node-lease/lease-watchdog',
    'Role default/lease-watchdog-node-events',
    'RoleBinding default/lease-watchdog-node-events',
    'ClusterRole -/lease-watchdog',
    'ClusterRoleBinding -/lease-watchdog',
  ]);
});

test('Leases: get and list, in kube-node-lease only (a Role, not a ClusterRole)', () => {
  const [role] = byKind('Role');
  assert.deepEqual(role?.rules, [
    { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['get', 'list'] },
  ]);
  const [binding] = byKind('RoleBinding');
  assert.equal(binding?.metadata.namespace, 'kube-node-lease');
  assert.deepEqual(binding?.roleRef, {
    apiGroup: 'rbac.authorization.k8s.io',
    kind: 'Role',
    name: 'lease-watchdog',
  });
  assert.deepEqual(binding?.subjects, subjects);
});

test('Events: get and list, in default only, where node events live (a Role)', () => {
  const role = byKind('Role').find((d) => d.metadata.namespace === 'default');
  assert.deepEqual(role?.rules, [
    { apiGroups: [''], resources: ['events'], verbs: ['get', 'list'] },
  ]);
  const binding = byKind('RoleBinding').find((d) => d.metadata.namespace === 'default');
  assert.deepEqual(binding?.roleRef, {
    apiGroup: 'rbac.authorization.k8s.io',
    kind: 'Role',
    name: 'lease-watchdog-node-events',
  });
  assert.deepEqual(binding?.subjects, subjects);
});

test('Nodes: get and list, nothing else cluster-wide', () => {
  const [clusterRole] = byKind('ClusterRole');
  assert.deepEqual(clusterRole?.rules, [
    { apiGroups: [''], resources: ['nodes'], verbs: ['get', 'list'] },
  ]);
  const [binding] = byKind('ClusterRoleBinding');
  assert.deepEqual(binding?.roleRef, {
    apiGroup: 'rbac.authorization.k8s.io',
    kind: 'ClusterRole',
    name: 'lease-watchdog',
  });
  assert.deepEqual(binding?.subjects, subjects);
});

test('every verb granted anywhere is get or list; no wildcards', () => {
  const rules = docs.flatMap((d) => d.rules ?? []);
  assert.equal(rules.length, 3);
  for (const rule of rules) {
    for (const value of [...rule.apiGroups, ...rule.resources, ...rule.verbs])
      assert.notEqual(value, '*');
    assert.deepEqual([...rule.verbs].sort(), ['get', 'list']);
  }
});

test('token mode: a service-account token Secret for the ServiceAccount, which mounts no token itself', () => {
  const [secret] = byKind('Secret');
  assert.equal(secret?.type, 'kubernetes.io/service-account-token');
  assert.equal(
    secret?.metadata.annotations?.['kubernetes.io/service-account.name'],
    'lease-watchdog',
  );
  const [account] = byKind('ServiceAccount');
  assert.equal(account?.automountServiceAccountToken, false);
});
