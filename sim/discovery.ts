/**
 * Version, health and API discovery, derived from the resources the sim serves: what kubectl
 * reads to learn which resources exist and which verbs they take.
 */
import { SIM_KUBE_VERSION } from './objects.js';
import type { ResourceKind } from './resources.js';

const VERSION = {
  major: '1',
  minor: SIM_KUBE_VERSION.split('.')[1],
  gitVersion: SIM_KUBE_VERSION,
  gitCommit: '0000000000000000000000000000000000000000',
  gitTreeState: 'clean',
  buildDate: '2025-03-12T00:00:00Z',
  goVersion: 'go1.23.6',
  compiler: 'gc',
  platform: 'linux/amd64',
};

function resourceEntry(r: ResourceKind): Record<string, unknown> {
  const entry: Record<string, unknown> = {
    name: r.plural,
    singularName: r.singular,
    namespaced: r.namespaced,
    kind: r.kind,
    verbs: r.verbs,
  };
  if (r.shortNames) entry.shortNames = r.shortNames;
  if (r.storageVersionHash) entry.storageVersionHash = r.storageVersionHash;
  return entry;
}

function resourceList(groupVersion: string, resources: readonly ResourceKind[]): string {
  const entries = resources.flatMap((r) => {
    const entry = resourceEntry(r);
    if (r.kind !== 'Node') return [entry];
    const status = { name: 'nodes/status', singularName: '', namespaced: false, kind: 'Node' };
    return [entry, { ...status, verbs: ['get', 'patch', 'update'] }];
  });
  return JSON.stringify({
    kind: 'APIResourceList',
    apiVersion: 'v1',
    groupVersion,
    resources: entries,
  });
}

function groupOf(group: string) {
  const gv = { groupVersion: `${group}/v1`, version: 'v1' };
  return { name: group, versions: [gv], preferredVersion: gv };
}

/**
 * The discovery document at `path` (JSON, or text for health checks), or undefined when the
 * path is not a discovery path. `serverAddress` is host:port as clients reach the server.
 */
export function discoveryBody(
  path: string,
  resources: readonly ResourceKind[],
  serverAddress: string,
): { body: string; contentType?: string } | undefined {
  const groups = [...new Set(resources.map((r) => r.group).filter((g) => g !== ''))];
  switch (path) {
    case '/version':
      return { body: JSON.stringify(VERSION) };
    case '/healthz':
    case '/livez':
    case '/readyz':
      return { body: 'ok', contentType: 'text/plain; charset=utf-8' };
    case '/api':
      // Aggregated discovery (Accept ...;g=apidiscovery.k8s.io;v=v2) is answered in the legacy
      // format with Content-Type application/json; kubectl falls back to it.
      return {
        body: JSON.stringify({
          kind: 'APIVersions',
          versions: ['v1'],
          serverAddressByClientCIDRs: [{ clientCIDR: '0.0.0.0/0', serverAddress }],
        }),
      };
    case '/api/v1':
      return {
        body: resourceList(
          'v1',
          resources.filter((r) => r.group === ''),
        ),
      };
    case '/apis':
      return {
        body: JSON.stringify({
          kind: 'APIGroupList',
          apiVersion: 'v1',
          groups: groups.map(groupOf),
        }),
      };
  }
  for (const group of groups) {
    if (path === `/apis/${group}`) {
      return { body: JSON.stringify({ kind: 'APIGroup', apiVersion: 'v1', ...groupOf(group) }) };
    }
    if (path === `/apis/${group}/v1`) {
      return {
        body: resourceList(
          `${group}/v1`,
          resources.filter((r) => r.group === group),
        ),
      };
    }
  }
  return undefined;
}
