/**
 * Silences (a user's `lease-watchdog silence add`: these nodes, or the nodes a selector matches,
 * until a given end) and maintenance windows (the deployment config's recurring
 * `{ schedule, duration, selector?, comment? }`): a node that would alert while one of them holds
 * is `suppressed` instead, by `silenced` or `maintenance`, with a reason naming the silence (its
 * id, end and comment) or the window (its schedule, end and comment).
 *
 * Unlike an expected removal (cordoned, deleting, autoscaler, Karpenter), a silence or a window is
 * not timed out as a stuck removal: it has an end the user chose. When it ends and the node is
 * still down, the next check judges the node as usual and FIRING follows (the silence of the node
 * is confirmed on the watchdog's clock, as always).
 *
 * Pure: silences, windows, the check's verdicts and `now` in; the adjusted verdicts out.
 */
import { lastFiring } from './cron.js';
import { MAX_NAME_LENGTH } from './lease.js';
import type { MaintenanceWindow } from './maintenance-window.js';
import { type Evaluation, isAlerting, type NodeVerdict } from './model.js';
import { NODE_FACT_LABELS } from './node-facts.js';
import { LEGACY_ZONE_LABEL, ZONE_LABEL } from './node-verdicts.js';
import { hasUnprintable, quoted } from './printable.js';
import { matchesSelector, parseSelector } from './selector.js';
import { isRemovalCause } from './suppression.js';
import { mapUnhealthy } from './verdict-tally.js';

/** What a silence silences: named nodes, or the nodes a label selector matches. */
export type SilenceTarget = { readonly nodes: readonly string[] } | { readonly selector: string };

export interface Silence {
  /** Short and unique within its cluster: `s-3f9a2c`. */
  readonly id: string;
  readonly target: SilenceTarget;
  /** Why (the user's words; printable, at most MAX_COMMENT_LENGTH characters). */
  readonly comment: string;
  /** Who added it, as far as the CLI knows (the OS user and host). */
  readonly author: string;
  /** Epoch ms (the adding CLI's clock). */
  readonly createdAt: number;
  /** Epoch ms: a planned window (`--starts-at`) holds from this; absent, from its creation. */
  readonly startsAt?: number | undefined;
  /** Epoch ms: it holds while the watchdog's clock is before this. */
  readonly endsAt: number;
  /** Who ended it early (`silence expire`), when someone did. */
  readonly expiredBy?: string | undefined;
}

/**
 * How long an ended silence is kept, for audit (`silence list` shows it marked as ended): a week
 * covers the weekly review and a weekend's incidents, and keeps the list short; after it the
 * DynamoDB TTL (or the file store's pruning) drops it.
 */
export const SILENCE_AUDIT_SECONDS = 7 * 24 * 3600;
/** The longest silence: a month. Longer is an exclusion (`excludeSelector`), not a silence. */
export const MAX_SILENCE_SECONDS = 30 * 24 * 3600;
/** The longest maintenance window: a week (a window at most as long as its weekly schedule). */
export const MAX_WINDOW_SECONDS = 7 * 24 * 3600;
export const MAX_COMMENT_LENGTH = 200;
/**
 * The label keys a silence's selector may name: the ones every check keeps of every Node (the
 * zone, the node group or pool, the instance and capacity type). A check keeps only the labels it
 * uses, and a silence is added long after the reader was built: a key outside these would match
 * nothing, so the CLI refuses it.
 */
export const SILENCE_SELECTOR_KEYS: readonly string[] = [
  ZONE_LABEL,
  LEGACY_ZONE_LABEL,
  ...NODE_FACT_LABELS,
];

const SILENCE_ID = /^s-[0-9a-f]{6}$/;

export function isSilenceId(text: string): boolean {
  return SILENCE_ID.test(text);
}

/** A new silence id from six random hex digits (the caller's randomness). */
export function silenceId(randomHex: string): string {
  return `s-${randomHex.slice(0, 6).toLowerCase()}`;
}

/** Holds at `now` (on the watchdog's clock): started (a planned one), and not ended. */
export function isActive(silence: Silence, now: number): boolean {
  return (silence.startsAt ?? Number.NEGATIVE_INFINITY) <= now && now < silence.endsAt;
}

/** Over at `now`: ended (or expired). A planned silence not started yet has not ended. */
export function hasEnded(silence: Silence, now: number): boolean {
  return now >= silence.endsAt;
}

/** The silences still kept at `now`: active, or ended within the audit period (older: dropped). */
export function keptSilences(silences: readonly Silence[], now: number): Silence[] {
  return silences.filter((s) => now < s.endsAt + SILENCE_AUDIT_SECONDS * 1000);
}

/** Why a comment cannot be kept, or undefined when it can (printable: printable.ts's one set). */
export function commentProblem(comment: string): string | undefined {
  if (comment.trim() === '') return 'must say why (it is empty)';
  if (comment.length > MAX_COMMENT_LENGTH) {
    return `must be at most ${MAX_COMMENT_LENGTH} characters (got ${comment.length})`;
  }
  if (hasUnprintable(comment)) return 'must be printable text on one line';
  return undefined;
}

/**
 * How far apart two honest clocks may be: the CLI's that stamps a silence and the watchdog's that
 * applies it. Five minutes, Kerberos's default tolerance (RFC 4120's clock skew), wide for NTP.
 */
export const CLOCK_SKEW_SECONDS = 5 * 60;
/** The longest author or `expiredBy` kept (the CLI writes `user@host`). */
export const MAX_AUTHOR_LENGTH = 200;
/** The last millisecond a JavaScript Date can hold (ECMA-262: 8.64e15 ms after the epoch). */
const LAST_DATE_MS = 8.64e15;

function isTime(ms: number): boolean {
  return Number.isSafeInteger(ms) && ms >= 0 && ms <= LAST_DATE_MS;
}

/** A time in a message: `2026-11-30 22:00 UTC`, or the raw number when no date can hold it. */
function when(ms: number): string {
  return isTime(ms) ? utcMinute(ms) : `at ${ms} ms after the epoch (no date can hold it)`;
}

function textProblem(what: string, text: string | undefined): string | undefined {
  if (text === undefined || (text.length <= MAX_AUTHOR_LENGTH && !hasUnprintable(text))) {
    return undefined;
  }
  return `${what} must be printable text of at most ${MAX_AUTHOR_LENGTH} characters`;
}

/**
 * Why a silence's times cannot be honoured at `now` (the part of `silenceProblem` that
 * `applySilences` checks on the watchdog's clock; its text is quoted there in any case).
 */
export function silenceTimeProblem(silence: Silence, now: number): string | undefined {
  const { id, createdAt, endsAt, startsAt } = silence;
  const skewMs = CLOCK_SKEW_SECONDS * 1000;
  const monthMs = MAX_SILENCE_SECONDS * 1000;
  // A planned one starts at most a month ahead, and lasts at most a month from its start.
  if (startsAt !== undefined && (!isTime(startsAt) || startsAt > now + monthMs + skewMs)) {
    return `silence ${id} starts ${when(startsAt)}, past ${utcMinute(now)} plus a month: the clock that added it is wrong, or lease-watchdog did not write it`;
  }
  const from = Math.max(now, startsAt ?? now);
  if (!isTime(endsAt) || endsAt > from + monthMs + skewMs) {
    return `silence ${id} ends ${when(endsAt)}, past ${utcMinute(from)} plus a month (the longest silence): the clock that added it is wrong, or lease-watchdog did not write it`;
  }
  if (!isTime(createdAt) || createdAt > now + skewMs) {
    return `silence ${id} was created ${when(createdAt)}, after ${utcMinute(now)}: the clock that added it runs fast`;
  }
  return undefined;
}

/**
 * Why a silence cannot be honoured at `now`, or undefined when it can: checked by the stores when
 * they write one and when a check reads them, and by `applySilences`, each on its own clock. A
 * shape is not enough: an end past what a Date can hold breaks every reason that names it, and an
 * end more than a month (MAX_SILENCE_SECONDS) past the applying clock, or a creation later than
 * it, is a silence stamped by a wrong clock (a laptop a year fast turns `--for 2h` into a year).
 */
export function silenceProblem(silence: Silence, now: number): string | undefined {
  const { id } = silence;
  const time = silenceTimeProblem(silence, now);
  if (time !== undefined) return time;
  const comment = commentProblem(silence.comment);
  if (comment !== undefined) return `silence ${id}: its comment ${comment}`;
  const text =
    textProblem('its author', silence.author) ?? textProblem('expiredBy', silence.expiredBy);
  if (text !== undefined) return `silence ${id}: ${text}`;
  const { target } = silence;
  if ('nodes' in target && target.nodes.some((n) => n.length > MAX_NAME_LENGTH)) {
    return `silence ${id}: node names must be at most ${MAX_NAME_LENGTH} characters`;
  }
  return undefined;
}

/** `2026-11-30 22:00 UTC` */
export function utcMinute(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** `node a, b` or `selector "pool=gpu"`. */
export function describeTarget(target: SilenceTarget): string {
  if ('selector' in target) return `selector ${JSON.stringify(target.selector)}`;
  return `${target.nodes.length === 1 ? 'node' : 'nodes'} ${target.nodes.join(', ')}`;
}

/** What a node's labels are, when the check read its Node (undefined: not read). */
export type LabelsOf = (name: string) => Readonly<Record<string, string>> | undefined;

function targetHolds(target: SilenceTarget, name: string, labelsOf: LabelsOf): boolean {
  if ('nodes' in target) return target.nodes.includes(name);
  const labels = labelsOf(name);
  if (labels === undefined) return false;
  try {
    return matchesSelector(parseSelector(target.selector), labels);
  } catch {
    return false; // a selector the CLI would have refused: it silences nothing
  }
}

/**
 * The nodes (of those the check read) that a silence's target matches now: what `silence add`
 * shows, and refuses when there are none (a mistyped name or zone silences nothing).
 */
export function matchingNodes(
  target: SilenceTarget,
  nodes: readonly { readonly name: string; readonly labels: Readonly<Record<string, string>> }[],
): string[] {
  const labels = new Map(nodes.map((n) => [n.name, n.labels]));
  return nodes.map((n) => n.name).filter((name) => targetHolds(target, name, (x) => labels.get(x)));
}

function windowHolds(window: MaintenanceWindow, name: string, labelsOf: LabelsOf): boolean {
  if (window.selector === undefined) return true;
  const labels = labelsOf(name);
  return labels !== undefined && matchesSelector(window.selector, labels);
}

/** The node as a silence or window suppresses it; the node itself when neither applies. */
function silenced(
  node: NodeVerdict,
  silences: readonly Silence[],
  windows: readonly { window: MaintenanceWindow; end: number }[],
  labelsOf: LabelsOf,
): NodeVerdict {
  const hidden = isAlerting(node.verdict)
    ? node.verdict
    : node.verdict === 'suppressed' &&
        node.suppressedBy !== undefined &&
        isRemovalCause(node.suppressedBy)
      ? node.suppressedVerdict
      : undefined;
  if (hidden === undefined) return node;
  // The user's own reason first: a silence names the one who wrote it; the last to end wins.
  const silence = silences
    .filter((s) => targetHolds(s.target, node.name, labelsOf))
    .sort((a, b) => b.endsAt - a.endsAt)[0];
  const open = windows
    .filter((w) => windowHolds(w.window, node.name, labelsOf))
    .sort((a, b) => b.end - a.end)[0];
  const why =
    silence !== undefined
      ? `silenced by ${silence.id} until ${utcMinute(silence.endsAt)}: ${quoted(silence.comment, MAX_COMMENT_LENGTH)}`
      : open !== undefined
        ? `in maintenance window "${open.window.schedule.source}" until ${utcMinute(open.end)}${open.window.comment === undefined ? '' : `: ${quoted(open.window.comment, MAX_COMMENT_LENGTH)}`}`
        : undefined;
  if (why === undefined) return node;
  return {
    ...node,
    verdict: 'suppressed',
    suppressedBy: silence !== undefined ? 'silenced' : 'maintenance',
    suppressedVerdict: hidden,
    reason: `${why}; ${node.reason}`,
  };
}

/**
 * The evaluation with every node that would alert (or is held as an expected removal) while an
 * active silence or window covers it suppressed by it. A silenced node is not silent for storms:
 * a zone taken down for maintenance is not a zone outage.
 */
export function applySilences(
  evaluation: Evaluation,
  { silences, windows }: { silences: readonly Silence[]; windows: readonly MaintenanceWindow[] },
  labelsOf: LabelsOf,
  now: number,
): Evaluation {
  // A silence whose times cannot be honoured on this clock silences nothing (stores set it aside).
  const active = silences.filter(
    (s) => isActive(s, now) && silenceTimeProblem(s, now) === undefined,
  );
  // The windows that hold at `now`, with when they end.
  const open = windows.flatMap((window) => {
    const durationMs = window.durationSeconds * 1000;
    const started = lastFiring(window.schedule, now, durationMs);
    return started === undefined ? [] : [{ window, end: started + durationMs }];
  });
  if (active.length === 0 && open.length === 0) return evaluation;
  // A healthy verdict is never silenced (mapUnhealthy leaves those alone).
  return mapUnhealthy(evaluation, (node) => silenced(node, active, open, labelsOf));
}

/** The silence ended at `at` by `by`; undefined when it had already ended. */
export function endSilence(silence: Silence, at: number, by: string): Silence | undefined {
  if (hasEnded(silence, at)) return undefined;
  return { ...silence, endsAt: at, expiredBy: by };
}
