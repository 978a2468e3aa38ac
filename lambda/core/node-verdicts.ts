/**
 * One verdict per lease, and per node without one: the per-case rules of the check engine
 * (evaluate.ts), given what it observed of each lease before any verdict (lease-observations.ts).
 *
 * The common case — a lease renewed within its threshold, of a Node that is not reported unready —
 * is built by `healthy` as one object literal; every other case (unreadable, orphaned, silent, not
 * ready, suppressed, never renewed, a suspect: silent past a renew interval) by `judgeUncommonLease`
 * and the functions below it.
 * Whether a silence counts at this look is lease-silence.ts's to say.
 */
import { formatAge } from './duration.js';
import { nameProblem } from './lease.js';
import {
  createdAtMs,
  type ObserveContext,
  type Observed,
  type ReadLease,
} from './lease-observations.js';
import { judgeSilence, missedRenewal, type SilenceLook } from './lease-silence.js';
import type { NodeInfo, NodeVerdict, Observation, Snapshot } from './model.js';
import {
  addNodeFacts,
  capacityTypeOf,
  instanceTypeOf,
  nodeFactsOf,
  nodeGroupOf,
} from './node-facts.js';
import { suppressedOr, suppressionOf } from './suppression.js';
import type { HealthyLease, HealthyRows } from './verdict-list.js';

export const ZONE_LABEL = 'topology.kubernetes.io/zone';
export const LEGACY_ZONE_LABEL = 'failure-domain.beta.kubernetes.io/zone';

function zoneOf(node: NodeInfo | undefined): string | null {
  if (!node) return null;
  return node.labels[ZONE_LABEL] ?? node.labels[LEGACY_ZONE_LABEL] ?? null;
}

/** The instance id at the end of a providerID (`aws:///eu-west-1a/i-0abc` → `i-0abc`). */
export function instanceOf(providerID: string | undefined): string | null {
  if (!providerID) return null;
  // The last non-empty part between slashes (one per node per check: no split).
  let end = providerID.length;
  while (end > 0 && providerID.charCodeAt(end - 1) === 47) end--;
  if (end === 0) return null;
  const last = providerID.slice(providerID.lastIndexOf('/', end - 1) + 1, end);
  return last !== providerID ? last : null;
}

/** What judging every lease of one check shares (evaluate builds it once per check). */
export interface JudgeContext extends ObserveContext, SilenceLook {
  readonly next: Map<string, Observation>;
  /** `renewed 9s ago` by seconds: one string per value, not one per node. */
  readonly renewedReasons: Map<number, string>;
  /** The healthy renewing leases, as rows. */
  readonly healthy: HealthyRows;
}

/** `renewed 9s ago`, one string per value in `reasons`. */
export function renewedReason(reasons: Map<number, string>, seconds: number): string {
  let reason = reasons.get(seconds);
  if (reason === undefined) {
    reason = `renewed ${formatAge(seconds)} ago`;
    reasons.set(seconds, reason);
  }
  return reason;
}

/** What every verdict says of its node: name, zone, instance, provider id, facts. */
function base(name: string, node: NodeInfo | undefined) {
  const providerID = node?.providerID ?? null;
  return {
    name,
    zone: zoneOf(node),
    instance: instanceOf(node?.providerID),
    providerID,
    ...nodeFactsOf(node),
  };
}

/**
 * The verdict of one lease, observed (lease-observations.ts) unless it cannot be read; undefined
 * when it is healthy, added to `ctx.healthy` instead.
 */
export function judgeLease(
  ctx: JudgeContext,
  read: ReadLease,
  observed: Observed | undefined,
): NodeVerdict | undefined {
  const { lease, renew, duration, node } = read;
  if (observed === undefined || renew.kind === 'invalid' || duration.kind === 'invalid') {
    return judgeUnreadableLease(ctx, read);
  }
  const { silence } = observed;
  const firstLook = read.previous === undefined;
  const { silent, held, observation } = judgeSilence(ctx, lease.name, observed, firstLook);
  // Keyed by the Node's copy of the name where there is one (the same text): the node cache keeps
  // that string anyway, so the observations kept between checks do not keep the lease list's too.
  ctx.next.set(node?.name ?? lease.name, observation);
  const newlySeen = firstLook || held;
  const renewTime = renew.kind === 'time' ? renew.raw : null;
  const silentForSeconds = Math.floor(silence.silentMs / 1000);
  const firstSight = silence.observation.estimated === true;
  if (!silent && !missedRenewal(observed) && renew.kind === 'time' && readyHeard(node)) {
    // The common case, kept as a row (verdict-list.ts) and built when read.
    ctx.healthy.add({
      name: lease.name,
      node,
      renewTime,
      leaseDurationSeconds: duration.seconds,
      silentForSeconds,
      firstSight,
      newlySeen,
      reason: renewedReason(ctx.renewedReasons, silentForSeconds),
    });
    return undefined;
  }
  const judged = {
    ...base(lease.name, node),
    renewTime,
    leaseDurationSeconds: duration.seconds,
    silentForSeconds,
    firstSight,
    newlySeen,
  };
  return judgeUncommonLease(ctx, judged, read, { observed, silent });
}

/**
 * A listed Node that is not reported unready (an absent Ready condition counts as ready).
 * `Ready=Unknown` is the node lifecycle controller's word on a silence: it sets it once its grace
 * passes with neither a status post nor a lease renewal (tryUpdateNodeHealth), so a lease renewal
 * is, for the controller too, the kubelet heard from. With a renewing lease the condition is stale
 * (the kubelet restores it at its next status post, and the reader's Node list may be older than
 * its lease list): paging it as not-ready paged live nodes after every API stall. A lease that
 * missed its renewals is the same silence the Unknown reports, judged by the lease's own rules
 * (confirmed by a second look, frozen looks, storms), not paged a second way.
 */
function readyHeard(node: NodeInfo | undefined): node is NodeInfo {
  return node !== undefined && node.ready !== 'False';
}

/** A lease whose spec cannot be read: `invalid`, its last observation carried as it was. */
function judgeUnreadableLease(
  ctx: JudgeContext,
  { lease, renew, duration, node, previous }: ReadLease,
): NodeVerdict {
  const renewTime = renew.kind === 'time' ? renew.raw : null;
  const leaseDurationSeconds = duration.kind === 'seconds' ? duration.seconds : null;
  const common = { ...base(lease.name, node), renewTime, leaseDurationSeconds };
  if (previous) ctx.next.set(lease.name, previous);
  const problem =
    renew.kind === 'invalid' ? renew.problem : (duration as { problem: string }).problem;
  return {
    ...common,
    verdict: 'invalid',
    reason: `lease cannot be read: ${problem}`,
    silentForSeconds: null,
  };
}

/** A lease's verdict before its reason: what every verdict of a readable lease shows. */
type JudgedLease = Omit<NodeVerdict, 'verdict' | 'reason' | 'silentForSeconds'> & {
  readonly silentForSeconds: number;
};

/**
 * A readable lease outside the common case: a lease with no Node (orphaned), a silent one
 * (expired), one whose Node reports Ready=False or, renewing, Unknown (not-ready) — either
 * suppressed when the node is on its way out or excluded — one silent past a renew interval that
 * our looks have not confirmed (suspect: never healthy), or a healthy one whose reason says more
 * (never renewed yet, Nodes not read, a joining node not ready yet).
 */
function judgeUncommonLease(
  ctx: JudgeContext,
  judged: JudgedLease,
  { renew, node }: ReadLease,
  { observed, silent }: { readonly observed: Observed; readonly silent: boolean },
): NodeVerdict {
  const { policy } = ctx;
  const { silentForSeconds, firstSight } = judged;
  const { thresholdSeconds } = observed;
  const nodesKnown = ctx.snapshot.nodes !== null;
  if (nodesKnown && !node) {
    return {
      ...judged,
      verdict: 'orphaned-lease',
      reason: 'lease has no Node: the node was deleted and its lease left behind',
    };
  }
  const cause = node ? suppressionOf(node, policy) : undefined;
  if (silent) {
    const what =
      renew.kind === 'never'
        ? `lease never renewed, ${formatAge(silentForSeconds)} after the node was created (startup grace ${thresholdSeconds}s)`
        : `no lease renewal for ${formatAge(silentForSeconds)} (grace ${thresholdSeconds}s${cappedNote(judged, thresholdSeconds)})${firstSight ? ', judged against the API server clock on first sight' : ''}`;
    return suppressedOr(judged, { verdict: 'expired', reason: what }, cause, policy);
  }
  if (node !== undefined && !readyHeard(node)) {
    const what = notReadyReason(node, observed);
    const age = nodeAge(ctx.snapshot, node);
    if (age === undefined || age >= policy.startupGraceSeconds) {
      return suppressedOr(judged, { verdict: 'not-ready', reason: what }, cause, policy);
    }
    // Joining: a new node reports Ready=False until its network is up (not paged the first look).
    const grace = `node is ${formatAge(age)} old (startup grace ${policy.startupGraceSeconds}s)`;
    return { ...judged, verdict: 'healthy', reason: `${what}; ${grace}` };
  }
  // An unconfirmed silence: a verdict of its own, never healthy, never paged, never a recovery.
  const suspect = renew.kind === 'time' && missedRenewal(observed);
  const reason = suspect
    ? `suspect: no lease renewal for ${formatAge(silentForSeconds)}, not yet confirmed by a second look`
    : renew.kind === 'never'
      ? `lease not renewed yet; node is ${formatAge(silentForSeconds)} old (startup grace ${thresholdSeconds}s)`
      : `renewed ${formatAge(silentForSeconds)} ago`;
  return {
    ...judged,
    verdict: suspect ? 'suspect' : 'healthy',
    reason: nodesKnown ? reason : `${reason} (Node not read)`,
  };
}

/** A Node's age in seconds on the API server's clock (undefined: no creation time). */
function nodeAge(snapshot: Snapshot, node: NodeInfo): number | undefined {
  const created = createdAtMs(node, undefined);
  return created === undefined ? undefined : Math.floor((snapshot.serverTime - created) / 1000);
}

/** Says so when the lease claimed a longer duration than it may (lease-observations.ts). */
function cappedNote(judged: JudgedLease, thresholdSeconds: number): string {
  const claimed = judged.leaseDurationSeconds;
  return claimed !== null && claimed > thresholdSeconds
    ? `, not the lease's ${claimed}s: the node lifecycle controller ignores it too`
    : '';
}

/** Why a node whose Ready condition is False is not ready (its kubelet is up and says so). */
function notReadyReason(node: NodeInfo, observed: Observed): string {
  const detail = [node.readyReason, node.readyMessage].filter(Boolean).join(': ');
  const status = `Node reports Ready=${node.ready}${detail ? ` (${detail})` : ''}`;
  const lease = missedRenewal(observed)
    ? 'while its lease is silent (not yet confirmed)'
    : 'while its lease is fresh';
  return `${status} ${lease}`;
}

/**
 * The verdict of a healthy renewing lease (nearly every lease of nearly every check) built as one
 * object, with the keys in the order of the other verdicts': no copies of copies per node.
 */
export function healthyVerdict(lease: HealthyLease): NodeVerdict {
  const {
    name,
    node,
    renewTime,
    leaseDurationSeconds,
    silentForSeconds,
    firstSight,
    newlySeen,
    reason,
  } = lease;
  const zone = zoneOf(node);
  const instance = instanceOf(node?.providerID);
  const providerID = node?.providerID ?? null;
  const nodeGroup = node && nodeGroupOf(node);
  const instanceType = node && instanceTypeOf(node);
  const capacityType = node && capacityTypeOf(node);
  if (nodeGroup !== undefined && instanceType !== undefined && capacityType !== undefined) {
    // Every fact known (managed node groups, Karpenter): one literal, one shape.
    return {
      name,
      zone,
      instance,
      providerID,
      nodeGroup,
      instanceType,
      capacityType,
      renewTime,
      leaseDurationSeconds,
      silentForSeconds,
      firstSight,
      newlySeen,
      verdict: 'healthy',
      reason,
    };
  }
  const verdict: { -readonly [K in keyof NodeVerdict]: NodeVerdict[K] } = {
    name,
    zone,
    instance,
    providerID,
  } as NodeVerdict;
  if (node) addNodeFacts(verdict, node);
  verdict.renewTime = renewTime;
  verdict.leaseDurationSeconds = leaseDurationSeconds;
  verdict.silentForSeconds = silentForSeconds;
  verdict.firstSight = firstSight;
  verdict.newlySeen = newlySeen;
  verdict.verdict = 'healthy';
  verdict.reason = reason;
  return verdict;
}

/** The verdict of a listed Node that has no Lease: missing, unless young or on its way out. */
export function judgeNodeWithoutLease(ctx: JudgeContext, node: NodeInfo): NodeVerdict {
  const { snapshot, policy } = ctx;
  const ageSeconds = nodeAge(snapshot, node);
  const common = {
    ...base(node.name, node),
    renewTime: null,
    leaseDurationSeconds: null,
    silentForSeconds: null,
  };
  if (node.nameLength !== undefined) {
    return {
      ...common,
      verdict: 'invalid',
      reason: `Node cannot be read: ${nameProblem(node.nameLength)}`,
    };
  }
  if (ageSeconds !== undefined && ageSeconds < policy.startupGraceSeconds) {
    return {
      ...common,
      verdict: 'healthy',
      reason: `no lease yet; node is ${formatAge(ageSeconds)} old (startup grace ${policy.startupGraceSeconds}s)`,
    };
  }
  const age = ageSeconds === undefined ? '' : `; node is ${formatAge(ageSeconds)} old`;
  const what = `no Lease in ${snapshot.namespace}${age}`;
  return suppressedOr(
    common,
    { verdict: 'missing-lease', reason: what },
    suppressionOf(node, policy),
    policy,
  );
}
