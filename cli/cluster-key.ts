/**
 * The key under which `watch --state-file` keeps a cluster's state and silences, and `silence`
 * finds them: the cluster's CA (a SHA-256 of its certificates) and its API server URL, loopback
 * names (`localhost`, `127.0.0.1`, `::1`) as one. The URL alone joined two clusters reached at
 * one URL (two port-forwards on `https://localhost:6443`) and split one reached as `localhost`
 * and as `127.0.0.1`. Without a CA in the kubeconfig (the system's trust, or no verification), the
 * URL alone. State written by earlier versions (keyed by the URL, and before that by the context's
 * name) is still read there until the first save under the key.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { FileStateStore } from '../lambda/adapters/state/file/file-store.js';
import type { Silence } from '../lambda/core/silences.js';
import type {
  KubeConfigView,
  SilenceStore,
  SilencesRead,
  StateStore,
  StoredState,
} from '../lambda/ports/index.js';

/** Where a cluster's entries are: its key, its context's name, and the names older versions used. */
export interface ClusterKey {
  readonly key: string;
  /** The kubeconfig context's name (what the CLI shows beside the key). */
  readonly legacy: string;
  /** Where earlier versions kept the cluster, read in turn while the key holds nothing. */
  readonly older: readonly string[];
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/** `https://host:port/path`, as the URL parser normalises it (case, default port, no `/` at the end). */
export function serverKey(server: string, loopback?: string): string {
  const url = new URL(server);
  const host = loopback && LOOPBACK.has(url.hostname) ? loopback : url.hostname;
  return `${url.protocol}//${host}${url.port ? `:${url.port}` : ''}${url.pathname.replace(/\/+$/, '')}`;
}

/** The key of the kubeconfig's current context (loadKubeConfig checked its server URL). */
export function clusterKeyOf(kubeConfig: KubeConfigView): ClusterKey {
  const cluster = kubeConfig.getCurrentCluster();
  const server = cluster?.server ?? '';
  const context = kubeConfig.getCurrentContext();
  const ca = caText(cluster?.caData, cluster?.caFile);
  const url = serverKey(server);
  if (ca === undefined) return { key: url, legacy: context, older: [context] };
  // The certificates' bytes, whatever their PEM's line breaks.
  const der = Buffer.from(ca.replace(/-----[^-]+-----/g, '').replace(/\s+/g, ''), 'base64');
  const sha = createHash('sha256').update(der).digest('hex').slice(0, 16);
  return {
    key: `${serverKey(server, '127.0.0.1')}#ca=${sha}`,
    legacy: context,
    older: [url, context],
  };
}

/** The kubeconfig's CA as PEM text, or undefined when it names none (or its file cannot be read). */
function caText(data: string | undefined, file: string | undefined): string | undefined {
  if (data) return Buffer.from(data, 'base64').toString('utf8');
  try {
    return file ? readFileSync(file, 'utf8') : undefined;
  } catch {
    return undefined;
  }
}

/** Every name the cluster may be kept under: its key first. */
export function namesOf({ key, older }: ClusterKey): string[] {
  return [...new Set([key, ...older])];
}

/** A state store that keeps the cluster under `key`, whatever name the check passes. */
export function keyedStateStore(inner: FileStateStore, at: ClusterKey): StateStore {
  const pick = async (read: (name: string) => Promise<StoredState>): Promise<StoredState> => {
    const current = await read(at.key);
    if (current.version > 0) return current;
    for (const name of namesOf(at).slice(1)) {
      const old = await read(name);
      // Saved under the key from now on: version 0 there.
      if (old.version > 0) return { ...old, version: 0 };
    }
    return current;
  };
  return {
    load: (_name, signal) => pick((name) => inner.load(name, signal)),
    save: (_name, state, version, signal) => inner.save(at.key, state, version, signal),
    loadOrReset: (_name, signal) => pick((name) => inner.loadOrReset(name, signal)),
  };
}

function merged(lists: readonly (readonly Silence[])[]): Silence[] {
  const byId = new Map<string, Silence>();
  for (const list of lists) for (const s of list) if (!byId.has(s.id)) byId.set(s.id, s);
  return [...byId.values()].sort((a, b) => a.endsAt - b.endsAt);
}

/** A silence store that adds under `key` and reads under `key` and the legacy name. */
export function keyedSilenceStore(inner: SilenceStore, at: ClusterKey): SilenceStore {
  const names = namesOf(at);
  /** Where silence `id` is kept; the key when nowhere (the store then says there is no such silence). */
  const holder = async (id: string, signal: AbortSignal | undefined): Promise<string> => {
    for (const name of names) {
      if ((await inner.list(name, signal)).some((s) => s.id === id)) return name;
    }
    return at.key;
  };
  return {
    list: async (_name, signal) =>
      merged(await Promise.all(names.map((name) => inner.list(name, signal)))),
    add: (_name, silence, signal) => inner.add(at.key, silence, signal),
    update: async (_name, id, change, signal) =>
      inner.update(await holder(id, signal), id, change, signal),
    listOrSetAside: async (_name, signal) => {
      // One after the other: setting aside takes the file's lock.
      const reads: SilencesRead[] = [];
      for (const name of names) reads.push(await inner.listOrSetAside(name, signal));
      const setAside = reads.find((r) => r.setAside !== undefined)?.setAside;
      return { silences: merged(reads.map((r) => r.silences)), setAside };
    },
  };
}
