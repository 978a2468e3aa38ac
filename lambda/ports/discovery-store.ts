/** Where discovery remembers the clusters it found, between its runs. */
import type { ClusterSettings } from '../settings/index.js';

/** `watched`: checked; `gone`: deleted; `dropped`: no longer matching (or failed). */
export type DiscoveredState = 'watched' | 'gone' | 'dropped';

/** One cluster discovery found, by the watchdog's name for it. */
export interface DiscoveredRecord {
  readonly name: string;
  readonly state: DiscoveredState;
  /**
   * Its settings, validated as a listed cluster's (from its tags); `auth.identity` says which
   * cluster it is (use-cases/discovery.ts, identityOf: absent in records of older versions).
   */
  readonly settings: ClusterSettings;
  /** The lines of its tags that were ignored (each announced once). */
  readonly tagProblems: readonly string[];
  /** The state last announced by a NOTICE (none yet: absent). */
  readonly announcedState?: DiscoveredState | undefined;
  /** The tag problems already announced. */
  readonly announcedTags: readonly string[];
  /**
   * When discovery found more than one cluster it would watch under this name (two regions, two
   * accounts): their ARNs, the watched one first (the others are not watched).
   */
  readonly sameName?: readonly string[] | undefined;
  /** What its tags set as last announced (discovery-notices.ts, taggedSettings); absent: none yet. */
  readonly announcedSettings?: string | undefined;
  /** The `sameName` ARNs already announced. */
  readonly announcedSameName?: readonly string[] | undefined;
  /**
   * Until when (epoch ms) one run holds the right to announce its deletion (`claim`): a check and a
   * discovery run that both find it deleted announce it once.
   */
  readonly announcing?: number | undefined;
}

export interface DiscoveryStore {
  /** Every remembered cluster. */
  load(signal?: AbortSignal): Promise<readonly DiscoveredRecord[]>;
  /** One remembered cluster, by name (undefined: none), without reading the others. */
  loadOne(name: string, signal?: AbortSignal): Promise<DiscoveredRecord | undefined>;
  /** Writes these records (only what changed: one small item each). */
  save(records: readonly DiscoveredRecord[], signal?: AbortSignal): Promise<void>;
  /**
   * Writes `record` only if the stored one is still `over` as loaded (undefined: none stored):
   * whether it was written. Another run's write in between wins, and this one is not made.
   */
  claim(
    record: DiscoveredRecord,
    over: DiscoveredRecord | undefined,
    signal?: AbortSignal,
  ): Promise<boolean>;
}
