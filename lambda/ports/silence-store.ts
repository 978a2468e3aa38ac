/** Silences: where a cluster's silences are kept. */
import type { Silence } from '../core/silences.js';

/**
 * Where a cluster's silences are kept: beside its state, never inside the state document (the
 * check rewrites that every minute under a conditional version; the CLI must not race it).
 */
export interface SilenceStore {
  /** The cluster's silences still kept (active, and ended within the audit period), by end. */
  list(cluster: string, signal?: AbortSignal): Promise<readonly Silence[]>;
  /** Adds one; throws SilenceError when its id is taken. */
  add(cluster: string, silence: Silence, signal?: AbortSignal): Promise<void>;
  /**
   * Ends one at `at` (its `endsAt` becomes `at`, `expiredBy` is set); returns it as stored.
   * Throws SilenceError when there is no such silence, or it has already ended.
   */
  expire(
    cluster: string,
    id: string,
    at: number,
    by: string,
    signal?: AbortSignal,
  ): Promise<Silence>;
}

/** A silence that cannot be added or ended as asked: one line saying why. */
export class SilenceError extends Error {
  override readonly name = 'SilenceError';
}
