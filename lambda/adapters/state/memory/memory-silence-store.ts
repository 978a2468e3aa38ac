/** Silences kept in memory: for tests, and for `watch` without a state file. */
import { keptSilences, type Silence } from '../../../core/silences.js';
import type { SilenceStore, SilencesRead } from '../../../ports/index.js';
import { byEnd, idTaken, unknownSilence, writable } from '../silence-document.js';

export class MemorySilenceStore implements SilenceStore {
  readonly #clusters = new Map<string, Silence[]>();

  constructor(private readonly clock: () => number = Date.now) {}

  async list(cluster: string, signal?: AbortSignal): Promise<readonly Silence[]> {
    signal?.throwIfAborted();
    return keptSilences(this.#clusters.get(cluster) ?? [], this.clock()).sort(byEnd);
  }

  /** Nothing here is ever set aside: only silences `add` checked are kept. */
  async listOrSetAside(cluster: string, signal?: AbortSignal): Promise<SilencesRead> {
    return { silences: await this.list(cluster, signal) };
  }

  async add(cluster: string, silence: Silence, signal?: AbortSignal): Promise<void> {
    signal?.throwIfAborted();
    const kept = keptSilences(this.#clusters.get(cluster) ?? [], this.clock());
    if (kept.some((s) => s.id === silence.id)) throw idTaken(silence.id);
    this.#clusters.set(cluster, [...kept, writable(silence, this.clock())]);
  }

  async update(
    cluster: string,
    id: string,
    change: (silence: Silence) => Silence,
    signal?: AbortSignal,
  ): Promise<Silence> {
    signal?.throwIfAborted();
    const kept = keptSilences(this.#clusters.get(cluster) ?? [], this.clock());
    const silence = kept.find((s) => s.id === id);
    if (silence === undefined) throw unknownSilence(cluster, id);
    const next = writable(change(silence), this.clock());
    this.#clusters.set(
      cluster,
      kept.map((s) => (s.id === id ? next : s)),
    );
    return next;
  }
}
