import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { endSilence, keptSilences, type Silence } from '../../../core/silences.js';
import { type SilenceStore, StateCorruptError } from '../../../ports/index.js';
import {
  alreadyEnded,
  byEnd,
  fromSilenceDocument,
  idTaken,
  toSilenceDocument,
  unknownSilence,
} from '../silence-document.js';
import { writeFileAtomically } from './atomic-file-write.js';
import { lockStateFile, StateFileLockedError } from './state-file-lock.js';

const FILE_FORMAT = 1;
const LOCK_ATTEMPTS = 40;

/** Where the silences of a state file live. */
export function silencesFileOf(stateFile: string): string {
  return `${resolve(stateFile)}.silences`;
}

type Clusters = Record<string, Silence[]>;

export class FileSilenceStore implements SilenceStore {
  readonly path: string;

  constructor(
    stateFile: string,
    private readonly clock: () => number = Date.now,
  ) {
    this.path = silencesFileOf(stateFile);
  }

  async list(cluster: string, signal?: AbortSignal): Promise<readonly Silence[]> {
    signal?.throwIfAborted();
    const clusters = await this.#read();
    return keptSilences(clusters[cluster] ?? [], this.clock()).sort(byEnd);
  }

  async add(cluster: string, silence: Silence, signal?: AbortSignal): Promise<void> {
    await this.#update(cluster, signal, (kept) => {
      if (kept.some((s) => s.id === silence.id)) throw idTaken(silence.id);
      return [[...kept, silence], undefined];
    });
  }

  async expire(
    cluster: string,
    id: string,
    at: number,
    by: string,
    signal?: AbortSignal,
  ): Promise<Silence> {
    return this.#update(cluster, signal, (kept) => {
      const silence = kept.find((s) => s.id === id);
      if (silence === undefined) throw unknownSilence(cluster, id);
      const ended = endSilence(silence, at, by);
      if (ended === undefined) throw alreadyEnded(silence);
      return [kept.map((s) => (s.id === id ? ended : s)), ended];
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
      const clusters = await this.#read();
      const now = this.clock();
      const pruned: Clusters = {};
      for (const [name, silences] of Object.entries(clusters)) {
        const kept = keptSilences(silences, now);
        if (kept.length > 0) pruned[name] = kept;
      }
      const [next, result] = change(pruned[cluster] ?? []);
      pruned[cluster] = next;
      const document = {
        format: FILE_FORMAT,
        clusters: Object.fromEntries(
          Object.entries(pruned).map(([name, silences]) => [name, silences.map(toSilenceDocument)]),
        ),
      };
      await writeFileAtomically(this.path, `${JSON.stringify(document)}\n`);
      return result;
    } finally {
      lock.release();
    }
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

  async #read(): Promise<Clusters> {
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
    if (format !== FILE_FORMAT || typeof clusters !== 'object' || clusters === null) {
      throw new StateCorruptError(
        `silences file ${this.path} is not a lease-watchdog silences file: delete it (its silences are lost) or point --state-file elsewhere`,
      );
    }
    const out: Clusters = {};
    for (const [name, list] of Object.entries(clusters as Record<string, unknown>)) {
      if (!Array.isArray(list)) continue;
      out[name] = list.map(fromSilenceDocument).filter((s): s is Silence => s !== undefined);
    }
    return out;
  }
}
