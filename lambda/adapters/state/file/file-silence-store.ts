/**
 * The silences of a state file, in `<state file>.silences` (JSON, one list per cluster), changed
 * under its own lock. A check's `listOrSetAside` moves what it cannot honour aside: a file that is
 * not a silences file at all (truncated, foreign) is renamed to `<file>.corrupt-<time>`; a
 * cluster's silences that cannot be honoured leave a copy of the file there and are dropped from
 * it. The CLI's writes keep such entries as they are, for the check to announce.
 */
import { copyFile, readFile, rename } from 'node:fs/promises';
import { resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { keptSilences, type Silence } from '../../../core/silences.js';
import { type SilenceStore, type SilencesRead, StateCorruptError } from '../../../ports/index.js';
import {
  byEnd,
  idTaken,
  listedBriefly,
  readSilence,
  unknownSilence,
  writable,
} from '../silence-document.js';
import { corruptPathOf, writeFileAtomically } from './atomic-file-write.js';
import { lockStateFile, StateFileLockedError } from './state-file-lock.js';

const FILE_FORMAT = 1;
const LOCK_ATTEMPTS = 40;
const ADVICE = 'delete it (its silences are lost) or point --state-file elsewhere';

/** Each cluster's entries as stored (JSON values, not yet read as silences). */
type Entries = Record<string, unknown[]>;

/** A file that holds something, but not silences the store can read. */
class UnreadableSilencesError extends StateCorruptError {}

/**
 * A cluster's entries read at `now`: its silences, those still kept (by end), and the entries that
 * are not ones it may honour.
 */
function sorted(entries: Entries, cluster: string, now: number) {
  const silences: Silence[] = [];
  const bad: { entry: unknown; problem: string }[] = [];
  (entries[cluster] ?? []).forEach((entry, i) => {
    const read = readSilence(entry, now, `entry ${i} of cluster ${JSON.stringify(cluster)}`);
    if (read.silence) silences.push(read.silence);
    else bad.push({ entry, problem: read.problem });
  });
  return { silences, kept: keptSilences(silences, now).sort(byEnd), bad };
}

export class FileSilenceStore implements SilenceStore {
  readonly path: string;

  constructor(
    stateFile: string,
    private readonly clock: () => number = Date.now,
  ) {
    this.path = `${resolve(stateFile)}.silences`;
  }

  async list(cluster: string, signal?: AbortSignal): Promise<readonly Silence[]> {
    signal?.throwIfAborted();
    return sorted(await this.#read(), cluster, this.clock()).kept;
  }

  /** Reads without the lock (`silence add` may run beside `watch`); takes it to set aside. */
  async listOrSetAside(cluster: string, signal?: AbortSignal): Promise<SilencesRead> {
    signal?.throwIfAborted();
    try {
      const { kept, bad } = sorted(await this.#read(), cluster, this.clock());
      if (bad.length === 0) return { silences: kept };
    } catch (error) {
      if (!(error instanceof UnreadableSilencesError)) throw error;
    }
    return this.#setAside(cluster, signal);
  }

  /** `listOrSetAside` under the lock, once something must be set aside: read again, move it. */
  async #setAside(cluster: string, signal: AbortSignal | undefined): Promise<SilencesRead> {
    const lock = await this.#lock(signal);
    try {
      let entries: Entries;
      try {
        entries = await this.#read();
      } catch (error) {
        if (!(error instanceof UnreadableSilencesError)) throw error;
        const copy = corruptPathOf(this.path, this.clock());
        await rename(this.path, copy);
        const reason = error.message.replace(`: ${ADVICE}`, '');
        return { silences: [], setAside: { reason, copy } };
      }
      const { silences, kept, bad } = sorted(entries, cluster, this.clock());
      if (bad.length === 0) return { silences: kept };
      const copy = corruptPathOf(this.path, this.clock());
      await copyFile(this.path, copy);
      await this.#write({ ...entries, [cluster]: silences });
      return {
        silences: kept,
        setAside: { reason: listedBriefly(bad.map((b) => b.problem)), copy },
      };
    } finally {
      lock.release();
    }
  }

  async add(cluster: string, silence: Silence, signal?: AbortSignal): Promise<void> {
    await this.#update(cluster, signal, (kept) => {
      if (kept.some((s) => s.id === silence.id)) throw idTaken(silence.id);
      return [[...kept, writable(silence, this.clock())], undefined];
    });
  }

  async update(
    cluster: string,
    id: string,
    change: (silence: Silence) => Silence,
    signal?: AbortSignal,
  ): Promise<Silence> {
    return this.#update(cluster, signal, (kept) => {
      const silence = kept.find((s) => s.id === id);
      if (silence === undefined) throw unknownSilence(cluster, id);
      const next = writable(change(silence), this.clock());
      return [kept.map((s) => (s.id === id ? next : s)), next];
    });
  }

  async #update<T>(
    cluster: string,
    signal: AbortSignal | undefined,
    change: (kept: Silence[]) => [Silence[], T],
  ): Promise<T> {
    signal?.throwIfAborted();
    const lock = await this.#lock(signal);
    try {
      const entries = await this.#read();
      const now = this.clock();
      const pruned: Entries = {};
      let result: T | undefined;
      for (const name of new Set([...Object.keys(entries), cluster])) {
        const { silences, bad } = sorted(entries, name, now);
        let kept = keptSilences(silences, now);
        if (name === cluster) [kept, result] = change(kept);
        // What cannot be honoured stays as it is: the check sets it aside and says so.
        const next = [...kept, ...bad.map((b) => b.entry)];
        if (next.length > 0) pruned[name] = next;
      }
      await this.#write(pruned);
      return result as T;
    } finally {
      lock.release();
    }
  }

  #write(entries: Entries): Promise<void> {
    const document = { format: FILE_FORMAT, clusters: entries };
    return writeFileAtomically(this.path, `${JSON.stringify(document)}\n`);
  }

  /** The file's lock; another `silence` command holds it for milliseconds, so wait a little. */
  async #lock(signal: AbortSignal | undefined) {
    for (let attempt = 1; ; attempt++) {
      try {
        return lockStateFile(this.path);
      } catch (error) {
        if (!(error instanceof StateFileLockedError) || attempt >= LOCK_ATTEMPTS) throw error;
        await sleep(50, undefined, { signal });
      }
    }
  }

  async #read(): Promise<Entries> {
    let text: string;
    try {
      text = await readFile(this.path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
      throw new StateCorruptError(
        `silences file ${this.path} cannot be read: ${(error as Error).message}`,
        { cause: error },
      );
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      value = undefined;
    }
    const { format, clusters } = (value ?? {}) as { format?: unknown; clusters?: unknown };
    if (
      format !== FILE_FORMAT ||
      typeof clusters !== 'object' ||
      clusters === null ||
      Array.isArray(clusters) ||
      !Object.values(clusters).every(Array.isArray)
    ) {
      throw new UnreadableSilencesError(
        `silences file ${this.path} is not a lease-watchdog silences file: ${ADVICE}`,
      );
    }
    return clusters as Entries;
  }
}
