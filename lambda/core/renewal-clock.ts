/**
 * When a lease was renewed, on the watchdog's own clock — and when its silence is confirmed.
 *
 * `renewTime` is written with the kubelet host's clock. Timing silence from the check that saw a
 * lease change (as the node lifecycle controller does, probing every 5 s) costs up to one gap
 * between checks: on a 1-minute schedule a dead node was paged 60–120 s after its last renewal.
 * Instead each lease's clock offset (our clock − its kubelet's clock) is learned:
 *
 * - Every look that sees a lease changed knows the renewal happened at or before this look, on our
 *   clock: `lookAt − renewTime` is an upper bound of the offset. The smallest such bound over many
 *   looks (each look lands at a random moment of the 10-s renewal period) converges to the offset
 *   plus a second or so. The bound creeps up by OFFSET_CREEP_MS per change, so a small backward step
 *   of the kubelet's clock is forgotten over time.
 * - The estimated renewal is `renewTime + offset`, CLAMPED into what our own looks allow: after the
 *   look that first saw the previous value (the renewal came after it), at or before this look. A
 *   clock step therefore never makes a lease look older than our observations permit; a step that
 *   breaks the clamp (the estimate before the previous look: a backward step) resets the offset to
 *   this look's bound. Without a step the estimate is never earlier than the true renewal, so the
 *   silence it gives is never longer than the true one.
 * - No history (first sight): as before, the age against the API server's clock, and the alert
 *   lifecycle waits one look to confirm (node-step.ts).
 *
 * A lease whose estimated silence reaches `suspectMs` (one renew interval, 0.25 × its duration
 * with the kubelet's 4 % jitter, plus slack: 12 s for the default 40 s) has missed a renewal: it
 * is a suspect. `suspectSince` marks from when our own looks have watched its renewTime stay the
 * same: the look that first saw the value, as far as the observations handed in remember
 * (lease-silence.ts; a look that saves nothing is remembered by its warm container alone:
 * StateStore.keepUnsaved), or, when the look that found it
 * suspect was frozen or the value was only ever seen at a first sight, that look. Its silence is
 * confirmed — the lease may be called expired — only when a look at least `suspectMs` after that
 * mark still sees the same renewTime (a live kubelet renews in that time, whatever its clock says)
 * and the estimated silence has reached the grace period. So the re-check asked for by the look
 * that finds a suspect lands when the silence reaches the grace, not a renew interval after that
 * look (on a 1-minute schedule with looks up to 32 s apart, that look can come 44 s after the
 * renewal, and where a cold container took over, later).
 * As before, the same value seen unchanged by our looks for the whole grace period (from the look
 * that first saw it) also confirms it, when this look is the first to find it suspect and is not
 * frozen: that is what a schedule alone (no re-checks) pages on. A look less than `suspectMs`
 * after a frozen one that found the lease suspect never pages it: right after a stall, kubelets
 * take a few seconds to renew.
 *
 * A frozen look needs more: one at which most leases are suspects (at least half of those with
 * history, at least FREEZE_MIN) — an API server stall or the network, more often than every node
 * dying together — or the first look that reads the cluster after reads failed (a stall that
 * our looks ran into). There a silence is confirmed only with the grace period plus `suspectMs`
 * (62 s by default: a 45-s stall, the renewal before it, and the seconds kubelets take to renew
 * once the API answers) and the second look. A whole cluster that really died is paged by the
 * second look after that (as a STORM).
 */
import type { Observation } from './model.js';

/**
 * How much the learned offset creeps up per observed change (forgets a small backward step). The
 * offset is learned from saved checks (about one a minute): with 250 ms it sat 2-5 s above the
 * true one, and every re-check came that much after the grace; with 50 ms it stays within about a
 * second. A backward step too small for the clamp to catch is forgotten in step ÷ 50 ms changes
 * (a 5-s step in ~100); until then the estimate is up to that much early, and a page still needs
 * our own looks to have seen the renewTime unchanged for a renew interval.
 */
export const OFFSET_CREEP_MS = 50;
/** At least this many leases becoming suspect at one look (and half of them) is a frozen cluster. */
export const FREEZE_MIN = 3;

/**
 * A live kubelet's longest wait between two renewals of a lease of this duration: 0.25 × duration
 * plus wait.JitterUntil's 4 % (10.4 s for the default 40 s). A live lease's estimated silence never
 * exceeds its true one, so a silence past this has likely missed a renewal.
 */
export function renewIntervalMs(durationSeconds: number): number {
  return Math.round(durationSeconds * 260);
}

/**
 * How long a live kubelet can go between renewals of a lease of this duration: its renew interval
 * (renewIntervalMs) and 1.6 s of slack. 12 s for the default 40 s.
 */
export function suspectMs(durationSeconds: number): number {
  return renewIntervalMs(durationSeconds) + 1_600;
}

/**
 * The observation of a lease whose renewTime (`raw`, kubelet clock `renewAt`) differs from the
 * previous one, seen at `now`: its renewal estimated on our clock.
 */
export function observeChange(
  raw: string | null,
  renewAt: number | undefined,
  previous: Observation,
  now: number,
): Observation {
  const changed: Observation = { renewTime: raw, changedAt: now, estimated: false };
  const carried = previous.offsetMs;
  if (renewAt === undefined) {
    return carried === undefined ? changed : { ...changed, offsetMs: carried };
  }
  const bound = now - renewAt;
  // The renewal came after the previous value was first seen (a valid, if loose, lower bound of
  // the last look that still saw it). Our clock only: `changedAt` is a look of ours.
  const lower = previous.changedAt;
  const stepped = carried !== undefined && renewAt + carried < lower;
  const offsetMs =
    carried === undefined || stepped ? bound : Math.min(carried + OFFSET_CREEP_MS, bound);
  const renewedAt = Math.min(now, Math.max(lower, renewAt + offsetMs));
  // One literal (the keys of `changed`, then these): every renewing lease, every check.
  return { renewTime: raw, changedAt: now, estimated: false, offsetMs, renewedAt };
}

/** Where a lease's silence starts on our clock: its estimated renewal, or when the value was first seen. */
export function silenceStart(observation: Observation): number {
  return observation.renewedAt ?? observation.changedAt;
}

/** The observation with its suspect mark set (from `now`) or cleared, as its silence says. */
export function markSuspect(
  observation: Observation,
  silentMs: number,
  limitMs: number,
  now: number,
): Observation {
  if (silentMs >= limitMs) {
    return observation.suspectSince === undefined
      ? { ...observation, suspectSince: now }
      : observation;
  }
  if (observation.suspectSince === undefined) return observation;
  const { suspectSince: _cleared, ...rest } = observation;
  return rest;
}

export interface Confirmation {
  /** The silence may be called expired at this look. */
  readonly confirmed: boolean;
  /** When a later look could confirm it (a re-check), when it is a suspect not yet confirmed. */
  readonly recheckAt?: number | undefined;
}

/**
 * Whether the silence of a lease, at least `thresholdMs` long on the estimate, is confirmed at
 * the look at `now` (see the module comment). `frozen`: most leases became suspects at it.
 */
export function confirmSilence(
  observation: Observation,
  thresholdMs: number,
  limitMs: number,
  { frozen, now }: { readonly frozen: boolean; readonly now: number },
): Confirmation {
  const since = observation.suspectSince;
  const start = silenceStart(observation);
  const needed = frozen ? thresholdMs + limitMs : thresholdMs;
  const secondLook = since !== undefined && now - since >= limitMs;
  const silentEnough = now - start >= needed;
  if (secondLook && silentEnough) return { confirmed: true };
  // As with a schedule alone: the value seen unchanged by our own looks for the grace period —
  // not at a frozen look, and not when a look less than `limitMs` ago already found it suspect
  // (right after a stall: that look's second look decides).
  const plain = !frozen && since === now && now - observation.changedAt >= thresholdMs;
  if (plain) return { confirmed: true };
  if (since === undefined) return { confirmed: false };
  return { confirmed: false, recheckAt: Math.max(start + needed, since + limitMs, now + 1_000) };
}
