/**
 * The key under which `watch --state-file` keeps a cluster's state and silences, and `silence`
 * finds them: the cluster's API server URL, which every kubeconfig context of that cluster shares.
 * Keyed by the context's name (as before), a silence added through another context (an alias,
 * another kubeconfig file) went where the running `watch` never looked. A state file written
 * before holds the cluster under its context's name: it is still read there (the legacy name)
 * until the first save under the key.
 */
import type { Silence } from '../lambda/core/silences.js';
import type {
  KubeConfigView,
  SilenceStore,
  SilencesRead,
  StateStore,
  StoredState,
} from '../lambda/ports/index.js';

/** Where a cluster's entries are: its key, and the context name older versions keyed it by. */
export interface ClusterKey {
  readonly key: string;
  readonly legacy: string;
}

/** `https://host:port/path`, as the URL parser normalises it (case, default port, no `/` at the end). */
export function serverKey(server: string): string {
  const url = new URL(server);
  return `${url.protocol}//${url.host}${url.pathname.replace(/\/+$/, '')}`;
}

/** The key of the kubeconfig's current context (loadKubeConfig checked its server URL). */
export function clusterKeyOf(kubeConfig: KubeConfigView): ClusterKey {
  const server = kubeConfig.getCurrentCluster()?.server ?? '';
  return { key: serverKey(server), legacy: kubeConfig.getCurrentContext() };
}

function namesOf({ key, legacy }: ClusterKey): string[] {
  return legacy === key ? [key] : [key, legacy];
}

/** A state store that keeps the cluster under `key`, whatever name the check passes. */
export function keyedStateStore(inner: StateStore, at: ClusterKey): StateStore {
  const pick = async (read: (name: string) => Promise<StoredState>): Promise<StoredState> => {
    const current = await read(at.key);
    if (current.version > 0 || at.legacy === at.key) return current;
    const old = await read(at.legacy);
    // Saved under the key from now on: version 0 there.
    return old.version > 0 ? { ...old, version: 0 } : current;
  };
  const loadOrReset = inner.loadOrReset?.bind(inner);
  return {
    load: (_name, signal) => pick((name) => inner.load(name, signal)),
    save: (_name, state, version, signal) => inner.save(at.key, state, version, signal),
    ...(loadOrReset && {
      loadOrReset: (_name: string, signal?: AbortSignal) =>
        pick((name) => loadOrReset(name, signal)),
    }),
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
