import { access, copyFile, readFile, rename } from 'node:fs/promises';
import { resolve } from 'node:path';
import {
  type ClusterState,
  emptyClusterState,
  StateConflictError,
  StateCorruptError,
  type StateStore,
  type StoredState,
} from '../../../ports/index.js';
import { fromStateDocument, type StateDocument, toStateDocument } from '../state-document.js';
import { corruptPathOf, writeFileAtomically } from './atomic-file-write.js';

const FILE_FORMAT = 1;
const ADVICE = 'delete it or point --state-file elsewhere';

interface StateFile {
  readonly format: typeof FILE_FORMAT;
  readonly clusters: Record<string, { readonly version: number; readonly state: StateDocument }>;
}

/** Saves queued per absolute path, so that stores of one process never interleave on a file. */
const queues = new Map<string, Promise<unknown>>();

/**
 * A file that holds something, but not a state the store can read; `version`, when the state of
 * one cluster alone is unreadable: its version.
 */
class UnreadableStateError extends StateCorruptError {
  version: number | undefined;
}

export class FileStateStore implements StateStore {
  readonly path: string;
  readonly #clock: () => number;

  constructor(path: string, options: { readonly clock?: () => number } = {}) {
    this.path = resolve(path);
    this.#clock = options.clock ?? Date.now;
  }

  /**
   * Whether the file exists, and the clusters it holds state for: `silence` refuses a state file
   * that no `watch` created (a mistyped path) or a cluster it holds nothing of.
   */
  async clusters(): Promise<readonly string[] | undefined> {
    try {
      await access(this.path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    }
    return Object.keys((await this.#read()).clusters);
  }

  async load(cluster: string, signal?: AbortSignal): Promise<StoredState> {
    signal?.throwIfAborted();
    const file = await this.#read();
    const entry = file.clusters[cluster];
    if (entry === undefined) return { version: 0, state: emptyClusterState() };
    return { version: entry.version, state: this.#decode(cluster, entry) };
  }

  /**
   * `load`, except that a file it cannot read as state is kept aside: a file that is not a state
   * file at all is renamed to `<file>.corrupt-<time>` (every cluster in it starts afresh); a
   * cluster whose state alone is unreadable gets a copy of the file there, and an empty state with
   * its version, which the next save moves on. A file that cannot be read (permissions) still
   * throws.
   */
  async loadOrReset(cluster: string, signal?: AbortSignal): Promise<StoredState> {
    try {
      return await this.load(cluster, signal);
    } catch (error) {
      if (!(error instanceof UnreadableStateError)) throw error;
      const copy = corruptPathOf(this.path, this.#clock());
      if (error.version === undefined) await rename(this.path, copy);
      else await copyFile(this.path, copy);
      // Without the advice to delete the file: the reset did what it says.
      const reason = error.message.replace(` — ${ADVICE}`, '');
      return { version: error.version ?? 0, state: emptyClusterState(), reset: { reason, copy } };
    }
  }

  save(
    cluster: string,
    state: ClusterState,
    expectedVersion: number,
    signal?: AbortSignal,
  ): Promise<number> {
    const previous = queues.get(this.path) ?? Promise.resolve();
    const next = previous
      .catch(() => undefined)
      .then(() => this.#save(cluster, state, expectedVersion, signal));
    queues.set(this.path, next);
    const forget = (): void => {
      if (queues.get(this.path) === next) queues.delete(this.path);
    };
    next.then(forget, forget);
    return next;
  }

  async #save(
    cluster: string,
    state: ClusterState,
    expectedVersion: number,
    signal?: AbortSignal,
  ): Promise<number> {
    signal?.throwIfAborted();
    const file = await this.#read();
    const current = file.clusters[cluster]?.version ?? 0;
    if (current !== expectedVersion) throw new StateConflictError(cluster, expectedVersion);
    const version = expectedVersion + 1;
    const clusters = { ...file.clusters, [cluster]: { version, state: toStateDocument(state) } };
    const content: StateFile = { format: FILE_FORMAT, clusters };
    signal?.throwIfAborted();
    await writeFileAtomically(this.path, `${JSON.stringify(content)}\n`);
    return version;
  }

  async #read(): Promise<StateFile> {
    let text: string;
    try {
      text = await readFile(this.path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
        return { format: FILE_FORMAT, clusters: {} };
      }
      const reason = error instanceof Error ? error.message : String(error);
      throw new StateCorruptError(`state file ${this.path} cannot be read: ${reason} — ${ADVICE}`, {
        cause: error,
      });
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new UnreadableStateError(
        `state file ${this.path} is not valid JSON: ${reason.replace(/\s+/g, ' ').trim()} — ${ADVICE}`,
        { cause: error },
      );
    }
    return this.#checkShape(value);
  }

  #checkShape(value: unknown): StateFile {
    const invalid = (what: string): StateCorruptError =>
      new UnreadableStateError(
        `state file ${this.path} is not a lease-watchdog state file: ${what} — ${ADVICE}`,
      );
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      throw invalid('expected a JSON object');
    }
    const { format, clusters } = value as Record<string, unknown>;
    if (format !== FILE_FORMAT) throw invalid(`unknown format ${JSON.stringify(format)}`);
    if (typeof clusters !== 'object' || clusters === null || Array.isArray(clusters)) {
      throw invalid('"clusters" must be an object');
    }
    for (const [name, entry] of Object.entries(clusters)) {
      const version = (entry as { version?: unknown } | null)?.version;
      if (typeof version !== 'number' || !Number.isSafeInteger(version) || version < 1) {
        throw invalid(`cluster ${JSON.stringify(name)} has no valid version`);
      }
    }
    return value as StateFile;
  }

  #decode(cluster: string, { version, state }: StateFile['clusters'][string]): ClusterState {
    try {
      return fromStateDocument(state);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      const unreadable = new UnreadableStateError(
        `state file ${this.path} holds an unreadable state for cluster ${cluster}: ${reason} — ${ADVICE}`,
        { cause: error },
      );
      unreadable.version = version;
      throw unreadable;
    }
  }
}
