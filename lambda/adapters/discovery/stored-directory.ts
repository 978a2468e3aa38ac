/**
 * The ClusterDirectory over what discovery stored: the clusters it watches, read at most once a
 * DIRECTORY_TTL_MS (one Query of the discovery partition) per container, so that a thousand
 * checks do not read the whole directory each. A cluster discovery found is checked within
 * DIRECTORY_TTL_MS of its run.
 */
import type { ClusterDirectory, DiscoveryStore } from '../../ports/index.js';
import type { ClusterSettings } from '../../settings/index.js';

/** How long a container reuses the directory it read. */
export const DIRECTORY_TTL_MS = 60_000;

export class StoredClusterDirectory implements ClusterDirectory {
  /** Each cluster's settings as last read, kept past `forget` (what the notifiers name it by). */
  readonly #known = new Map<string, ClusterSettings>();
  #read:
    | { readonly at: number; readonly clusters: Promise<readonly ClusterSettings[]> }
    | undefined;

  constructor(
    private readonly store: DiscoveryStore,
    private readonly clock: () => number,
  ) {}

  discovered(): Promise<readonly ClusterSettings[]> {
    const now = this.clock();
    if (this.#read === undefined || now - this.#read.at >= DIRECTORY_TTL_MS) {
      const clusters = this.store.load().then((records) => {
        const watched = records.filter((r) => r.state === 'watched').map((r) => r.settings);
        for (const cluster of watched) this.#known.set(cluster.name, cluster);
        return watched;
      });
      // A failed read is not kept: the next call reads again.
      clusters.catch(() => {
        this.#read = undefined;
      });
      this.#read = { at: now, clusters };
    }
    return this.#read.clusters;
  }

  /** A discovered cluster's settings, as last read (undefined: never read in this container). */
  settingsOf(name: string): ClusterSettings | undefined {
    return this.#known.get(name);
  }

  /** Forgets what was read (after discovery changed the stored set in this container). */
  forget(): void {
    this.#read = undefined;
  }
}
