/**
 * Whether a lease's silence counts at one look, on the watchdog's own clock: confirmed by our looks
 * (renewal-clock.ts) or already judged expired for the same renewTime, so that verdicts about one
 * silence move one way (suspect, then expired) and a dead node never flips back to healthy.
 */
import type { Observed } from './lease-observations.js';
import type { Observation } from './model.js';
import { confirmSilence } from './renewal-clock.js';

/** What judging a silence needs of the check (node-verdicts.ts's JudgeContext extends it). */
export interface SilenceLook {
  readonly now: number;
  /** Most leases became suspects at this look at once (renewal-clock.ts). */
  readonly frozen: boolean;
  /** Suspects to look at again, and when. */
  readonly rechecks: { lease: string; at: number }[];
}

/** Where a lease's silence stands at this look (see judgeSilence). */
export interface SilenceJudgement {
  /** Its silence counts: the lease is expired. */
  readonly silent: boolean;
  /** Expired on the strength of a first sight alone (the kubelet's clock), not yet of our looks. */
  readonly held: boolean;
  /** The observation to carry, marked `expiredSince` once expired. */
  readonly observation: Observation;
}

/**
 * Whether a lease's silence counts at this look. Verdicts about one silence move one way: a
 * renewTime once judged expired stays expired (`expiredSince`) until the lease is seen renewed,
 * even at a look that could not confirm it on its own (too soon after the last, or frozen) — a
 * dead node never flips back. When that rests on a first sight alone and our looks have not
 * confirmed it yet, it is `held`: shown expired, not paged yet.
 */
export function judgeSilence(
  ctx: SilenceLook,
  name: string,
  observed: Observed,
  firstLook: boolean,
): SilenceJudgement {
  const { confirmed, observation } = silenceConfirmed(ctx, name, observed, firstLook);
  const { expiredSince } = observation;
  if (!confirmed && expiredSince === undefined) return { silent: false, held: false, observation };
  return {
    silent: true,
    held: !confirmed && observation.estimated === true,
    observation:
      expiredSince === undefined ? { ...observation, expiredSince: ctx.now } : observation,
  };
}

/**
 * Whether a lease's silence counts: past its threshold and, for a lease renewed at some time,
 * confirmed by our own looks (renewal-clock.ts). A first sight keeps its estimate (the alert
 * lifecycle waits one look, queued for a re-check); a suspect not confirmed yet is queued too. The observation
 * returned is the one to carry: a suspect found at this look is marked (`watchedFrom`).
 */
function silenceConfirmed(
  ctx: SilenceLook,
  name: string,
  observed: Observed,
  newlySeen: boolean,
): { confirmed: boolean; observation: Observation } {
  const { silence, thresholdSeconds, limitMs } = observed;
  if (limitMs === undefined) {
    return { confirmed: pastThreshold(observed), observation: silence.observation };
  }
  const found = silence.observation.suspectSince === ctx.now;
  const observation = found ? watchedFrom(silence.observation, ctx.frozen) : silence.observation;
  const check = newlySeen
    ? {
        confirmed: pastThreshold(observed),
        recheckAt: observation.suspectSince && ctx.now + limitMs,
      }
    : confirmSilence(observation, thresholdSeconds * 1000, limitMs, ctx);
  const due = check.recheckAt;
  // A first sight already past the threshold is held until a look of ours confirms it: that look
  // is asked for as soon as it can confirm (a renew interval on), not left to the next run.
  const held = newlySeen && check.confirmed && observation.estimated === true;
  if (due && (!check.confirmed || held) && (found || ctx.frozen)) {
    ctx.rechecks.push({ lease: name, at: due });
  }
  return { confirmed: check.confirmed, observation };
}

/**
 * A suspect found at this look, marked from when our own looks have watched its renewTime stay
 * the same: the look that first saw the value (`changedAt`), so that its re-check can land at the
 * grace rather than a renew interval after this look. Not at a frozen look (a stall may lie
 * between that look and this one: the renew interval counts from here), and not while the value
 * was only ever seen at a first sight (its `changedAt` is an estimate on the kubelet's clock).
 */
function watchedFrom(observation: Observation, frozen: boolean): Observation {
  if (frozen || observation.estimated === true) return observation;
  return { ...observation, suspectSince: observation.changedAt };
}

/**
 * A silence past one renew interval on the estimate (`limitMs`, renewal-clock.ts's suspectMs): the
 * kubelet has missed a renewal, so the lease is a suspect until its silence is confirmed.
 */
export function missedRenewal(observed: Observed): boolean {
  const { silence, limitMs } = observed;
  return limitMs === undefined ? pastThreshold(observed) : silence.silentMs >= limitMs;
}

/** A silence as long as the lease's threshold on the estimate: expired once confirmed, suspect until then. */
export function pastThreshold({ silence, thresholdSeconds }: Observed): boolean {
  return silence.silentMs >= thresholdSeconds * 1000;
}
