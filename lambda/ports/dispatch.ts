/**
 * The fleet's dispatcher: each cluster's check sent on its own (SQS in the cloud) for the function
 * to run apart from every other, and the ledger of each cluster's last successful check that the
 * fleet-wide dead-man's switch reads.
 */

/** One cluster's check, to run `delaySeconds` (0 to 900, whole) after it is sent. */
export interface DispatchedCheck {
  readonly cluster: string;
  readonly delaySeconds: number;
}

export interface CheckDispatch {
  /**
   * Sends every check (SQS: SendMessageBatch, ten a request). Resolves with the clusters whose
   * check was not accepted (empty: all were); rejects only when nothing could be asked at all.
   */
  send(checks: readonly DispatchedCheck[], signal?: AbortSignal): Promise<readonly string[]>;
}

/** What the ledger knows of one cluster (epoch ms). */
export interface LedgerEntry {
  /** Its last successful dispatched check; null before the first one. */
  readonly checkedAt: number | null;
  /** When it was first dispatched (or first checked): the start of its grace. */
  readonly since: number;
}

export interface LedgerView {
  readonly clusters: ReadonlyMap<string, LedgerEntry>;
  /** The clusters the last fleet NOTICE named as overdue (none yet: empty). */
  readonly announced: readonly string[];
}

export interface CheckLedger {
  /** Records a successful check of `cluster` at `at`. */
  checked(cluster: string, at: number, signal?: AbortSignal): Promise<void>;
  /** Everything the ledger holds (one paged read). */
  read(signal?: AbortSignal): Promise<LedgerView>;
  /** Starts the grace of clusters the ledger does not know yet (an existing entry is kept). */
  begin(clusters: readonly string[], at: number, signal?: AbortSignal): Promise<void>;
  /** Records which clusters the fleet's NOTICEs have now named as overdue. */
  announce(overdue: readonly string[], at: number, signal?: AbortSignal): Promise<void>;
}
