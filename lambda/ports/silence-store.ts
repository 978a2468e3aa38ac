/** Silences: where a cluster's silences are kept. */
import type { Silence } from '../core/silences.js';
import type { StateReset } from './state-store.js';

/** What a check reads of a cluster's silences. */
export interface SilencesRead {
  /** The silences it may honour (active, and ended within the audit period), by end. */
  readonly silences: readonly Silence[];
  /**
   * Set when stored silences could not be honoured (core/silences.ts `silenceProblem`, or not a
   * silence at all): the store moved them aside, so the check announces them once (a NOTICE).
   */
  readonly setAside?: StateReset | undefined;
}

/**
 * Where a cluster's silences are kept: beside its state, never inside the state document (the
 * check rewrites that every minute under a conditional version; the CLI must not race it).
 */
export interface SilenceStore {
  /** The cluster's silences still kept (active, and ended within the audit period), by end. */
  list(cluster: string, signal?: AbortSignal): Promise<readonly Silence[]>;
  /**
   * `list` for a check: what cannot be honoured on the store's clock is moved aside (a DynamoDB
   * key, a file copy) instead of being skipped on every check, and said once in `setAside`.
   */
  listOrSetAside(cluster: string, signal?: AbortSignal): Promise<SilencesRead>;
  /**
   * Adds one; throws SilenceError when its id is taken, or when it could not be honoured on the
   * store's clock (`silenceProblem`: one line).
   */
  add(cluster: string, silence: Silence, signal?: AbortSignal): Promise<void>;
  /**
   * Replaces one (kept, not dropped) by what `change` makes of it (`silence update`; `silence
   * expire` with silence-document.ts's `endedAt`), checked as
   * `add` checks a silence; returns it as stored. `change` throws SilenceError to refuse. Throws
   * SilenceError when there is no such silence, or it changed meanwhile.
   */
  update(
    cluster: string,
    id: string,
    change: (silence: Silence) => Silence,
    signal?: AbortSignal,
  ): Promise<Silence>;
}

/** A silence that cannot be added or ended as asked: one line saying why. */
export class SilenceError extends Error {
  override readonly name = 'SilenceError';
}
