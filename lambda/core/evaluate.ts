/**
 * The check engine: one verdict per node (and per orphaned lease) from a snapshot of the cluster,
 * the observations carried from earlier checks, the policy and the watchdog's clock.
 *
 * Silence is judged the way the node lifecycle controller judges it: on the watchdog's own
 * clock, from when it last saw `renewTime` change. `renewTime` is written with the kubelet host's
 * clock, so comparing it with our clock would inherit every node's skew. Only on first sight
 * (no earlier observation) is `renewTime` compared with a clock, and then with the API server's
 * (the `Date` header of the list), never ours; that estimate is carried forward, so a node first
 * seen long silent stays `expired` until its lease changes.
 *
 * A lease is silent when it has not changed for at least max(grace period, leaseDurationSeconds):
 * the grace period is the watchdog's judgement, and a lease that is still valid by its own
 * declared duration cannot be called expired.
 */
import { formatAge } from './duration.js';
import {
  createdAtMs,
  latestLeases,
  type Observed,
  observeAll,
  type ReadLease,
} from './lease-observations.js';
import type {
  Evaluation,
  NodeInfo,
  NodeVerdict,
  Observation,
  Observations,
  Snapshot,
  SuppressionCause,
  Verdict,
} from './model.js';
import {
  addNodeFacts,
  capacityTypeOf,
  instanceTypeOf,
  NODE_FACT_LABELS,
  nodeFactsOf,
  nodeGroupOf,
} from './node-facts.js';
import type { Policy } from './policy.js';
import { confirmSilence } from './renewal-clock.js';
import { describeSuppression, suppressionOf } from './suppression.js';
import { tally } from './verdict-tally.js';

export const ZONE_LABEL = 'topology.kubernetes.io/zone';
export const LEGACY_ZONE_LABEL = 'failure-domain.beta.kubernetes.io/zone';

/** The Node labels a check reads: the zone, the node facts, and whatever the exclusion selector names. */
export function labelsUsedBy(policy: Policy): string[] {
  return [
    ZONE_LABEL,
    LEGACY_ZONE_LABEL,
    ...NODE_FACT_LABELS,
    ...(policy.exclude?.requirements.map((r) => r.key) ?? []),
    ...(policy.maintenance ?? []).flatMap((w) => w.selector?.requirements.map((r) => r.key) ?? []),
  ];
}

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

interface Context {
  readonly snapshot: Snapshot;
  readonly policy: Policy;
  readonly now: number;
  readonly previous: Observations;
  readonly next: Map<string, Observation>;
  readonly observed: ReadonlyMap<string, Observed>;
  /** Most leases became suspects at this look at once (renewal-clock.ts). */
  readonly frozen: boolean;
  /** Suspects to look at again, and when. */
  readonly rechecks: { lease: string; at: number }[];
  /** `renewed 9s ago` by seconds: one string per value, not one per node. */
  readonly renewedReasons: Map<number, string>;
}

function renewedReason(ctx: Context, seconds: number): string {
  let reason = ctx.renewedReasons.get(seconds);
  if (reason === undefined) {
    reason = `renewed ${formatAge(seconds)} ago`;
    ctx.renewedReasons.set(seconds, reason);
  }
  return reason;
}

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

function judgeLease(
  ctx: Context,
  { lease, renew, duration }: ReadLease,
  node: NodeInfo | undefined,
): NodeVerdict {
  const { snapshot, policy, now } = ctx;
  const leaseDurationSeconds = duration.kind === 'seconds' ? duration.seconds : null;
  const renewTime = renew.kind === 'time' ? renew.raw : null;
  const nodesKnown = snapshot.nodes !== null;

  if (renew.kind === 'invalid' || duration.kind === 'invalid') {
    const common = { ...base(lease.name, node), renewTime, leaseDurationSeconds };
    const previous = ctx.previous.get(lease.name);
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

  const { silence, thresholdSeconds, limitMs } = ctx.observed.get(lease.name) as Observed;
  ctx.next.set(lease.name, silence.observation);
  const silentForSeconds = Math.floor(silence.silentMs / 1000);
  const estimated = silence.observation.estimated === true;
  const newlySeen = !ctx.previous.has(lease.name);
  let silent = silence.silentMs >= thresholdSeconds * 1000;
  if (limitMs !== undefined) {
    // Renewed at some time: silence is confirmed by our own looks (renewal-clock.ts). A first
    // sight keeps its estimate (the alert lifecycle waits one look), re-checked soon.
    const { observation } = silence;
    const check = newlySeen
      ? { confirmed: silent, recheckAt: observation.suspectSince && now + limitMs }
      : confirmSilence(observation, thresholdSeconds * 1000, limitMs, ctx.frozen, now);
    silent = check.confirmed;
    const due = check.recheckAt;
    if (due && !silent && (observation.suspectSince === now || ctx.frozen)) {
      ctx.rechecks.push({ lease: lease.name, at: due });
    }
  }
  if (!silent && renew.kind === 'time' && node !== undefined && node.ready !== 'False') {
    // The common case, built without the copies below.
    const unconfirmed = silence.silentMs >= thresholdSeconds * 1000;
    return healthy(
      lease.name,
      node,
      renewTime,
      leaseDurationSeconds,
      silentForSeconds,
      estimated,
      newlySeen,
      unconfirmed
        ? `suspect: no lease renewal for ${formatAge(silentForSeconds)}, not yet confirmed by a second look`
        : renewedReason(ctx, silentForSeconds),
    );
  }
  const judged = {
    ...base(lease.name, node),
    renewTime,
    leaseDurationSeconds,
    silentForSeconds,
    firstSight: estimated,
    newlySeen,
  };

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
        : `no lease renewal for ${formatAge(silentForSeconds)} (grace ${thresholdSeconds}s)${estimated ? ', judged against the API server clock on first sight' : ''}`;
    return suppressedOr(judged, 'expired', what, cause, policy);
  }
  if (node?.ready === 'False') {
    const detail = [node.readyReason, node.readyMessage].filter(Boolean).join(': ');
    const what = `Node reports Ready=False${detail ? ` (${detail})` : ''} while its lease is fresh`;
    return suppressedOr(judged, 'not-ready', what, cause, policy);
  }
  const unconfirmed = silence.silentMs >= thresholdSeconds * 1000;
  const reason =
    renew.kind === 'never'
      ? `lease not renewed yet; node is ${formatAge(silentForSeconds)} old (startup grace ${thresholdSeconds}s)`
      : unconfirmed
        ? `suspect: no lease renewal for ${formatAge(silentForSeconds)}, not yet confirmed by a second look`
        : `renewed ${formatAge(silentForSeconds)} ago`;
  return {
    ...judged,
    verdict: 'healthy',
    reason: nodesKnown ? reason : `${reason} (Node not read)`,
  };
}

/**
 * The verdict of a healthy renewing lease (nearly every lease of nearly every check) built as one
 * object, with the keys in the order of the other verdicts': no copies of copies per node.
 */
function healthy(
  name: string,
  node: NodeInfo | undefined,
  renewTime: string | null,
  leaseDurationSeconds: number | null,
  silentForSeconds: number,
  firstSight: boolean,
  newlySeen: boolean,
  reason: string,
): NodeVerdict {
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

function suppressedOr(
  judged: Omit<NodeVerdict, 'verdict' | 'reason'>,
  verdict: Verdict,
  what: string,
  cause: SuppressionCause | undefined,
  policy: Policy,
): NodeVerdict {
  if (cause === undefined) return { ...judged, verdict, reason: what };
  return {
    ...judged,
    verdict: 'suppressed',
    suppressedBy: cause,
    suppressedVerdict: verdict,
    reason: `${describeSuppression(cause, policy)}; ${what}`,
  };
}

function judgeNodeWithoutLease(ctx: Context, node: NodeInfo): NodeVerdict {
  const { snapshot, policy } = ctx;
  const created = createdAtMs(node, undefined);
  const ageSeconds =
    created === undefined ? undefined : Math.floor((snapshot.serverTime - created) / 1000);
  const common = {
    ...base(node.name, node),
    renewTime: null,
    leaseDurationSeconds: null,
    silentForSeconds: null,
  };
  if (ageSeconds !== undefined && ageSeconds < policy.startupGraceSeconds) {
    return {
      ...common,
      verdict: 'healthy',
      reason: `no lease yet; node is ${formatAge(ageSeconds)} old (startup grace ${policy.startupGraceSeconds}s)`,
    };
  }
  const age = ageSeconds === undefined ? '' : `; node is ${formatAge(ageSeconds)} old`;
  const what = `no Lease in ${snapshot.namespace}${age}`;
  return suppressedOr(common, 'missing-lease', what, suppressionOf(node, policy), policy);
}

/** At least this many of the last check's leases missing (and at least half) make a list suspect. */
export const SUSPECT_VANISHED_MIN = 3;

/**
 * A lease list that lacks most of the leases the last check saw (at least half of them, and at
 * least SUSPECT_VANISHED_MIN) is suspect: a proxy, a cache or an API server bug answering part of
 * the list, more often than half a cluster deleted in one minute. Its check is degraded: nodes
 * absent from it are not taken for gone, a node whose lease vanished is not judged (no wave of
 * RESOLVED "removed", no wave of missing-lease). The next check, compared with this one, confirms.
 */
function suspectList(
  leased: ReadonlyMap<string, ReadLease>,
  previous: Observations,
): string | undefined {
  let vanished = 0;
  for (const name of previous.keys()) if (!leased.has(name)) vanished++;
  if (vanished < SUSPECT_VANISHED_MIN || vanished * 2 < previous.size) return undefined;
  return `the lease list lacks ${vanished} of the ${previous.size} leases the last check saw: suspect, nodes missing from it are kept as they were until the next check confirms`;
}

/**
 * A Node list that lacks most of the nodes whose kubelets are alive (leases renewed since the last
 * check: at least half of them, at least SUSPECT_VANISHED_MIN) is suspect the same way: a kubelet
 * that renews its lease has a Node. The check then runs on the leases alone, as when Nodes cannot
 * be read: no lease is called orphaned, no incident resolves as deleted — for as long as those
 * kubelets renew with no Node (a deleted node's kubelet stops, and its lease then counts as gone).
 */
function suspectNodeList(
  leased: ReadonlyMap<string, ReadLease>,
  nodesByName: ReadonlyMap<string, NodeInfo>,
  previous: Observations,
): string | undefined {
  let live = 0;
  let unlisted = 0;
  for (const { lease, renew } of leased.values()) {
    const name = lease.name;
    const before = previous.get(name);
    if (!before || renew.kind !== 'time' || renew.raw === before.renewTime) continue;
    live++;
    if (!nodesByName.has(name)) unlisted++;
  }
  if (unlisted < SUSPECT_VANISHED_MIN || unlisted * 2 < live) return undefined;
  return `the Node list lacks ${unlisted} of the ${live} nodes whose leases were renewed since the last check: suspect, checked on leases alone`;
}

/**
 * Gives every node, and every lease without a node, one verdict. Pure: `now` is the watchdog's
 * clock (epoch ms); the returned observations are to be passed to the next check.
 */
export function evaluate(
  snapshot: Snapshot,
  observations: Observations,
  policy: Policy,
  now: number,
  /** The look before this one failed to read the cluster (a stall our looks ran into). */
  afterReadFailure = false,
): Evaluation {
  const listed = new Map<string, NodeInfo>();
  for (const node of snapshot.nodes ?? []) listed.set(node.name, node);
  const leased = latestLeases(snapshot.leases);
  const nodeListSuspect =
    snapshot.nodes === null ? undefined : suspectNodeList(leased, listed, observations);
  const judged = nodeListSuspect === undefined ? snapshot : { ...snapshot, nodes: null };
  const nodesByName = nodeListSuspect === undefined ? listed : new Map<string, NodeInfo>();
  const seen = { snapshot: judged, policy, now, previous: observations };
  const all = observeAll(seen, leased, nodesByName);
  const frozen = all.frozen || afterReadFailure;
  const ctx: Context = {
    ...seen,
    next: new Map(),
    observed: all.observed,
    frozen,
    rechecks: [],
    renewedReasons: new Map(),
  };

  const verdicts: NodeVerdict[] = [];
  for (const read of leased.values()) {
    verdicts.push(judgeLease(ctx, read, nodesByName.get(read.lease.name)));
  }
  const suspect = suspectList(leased, observations);
  for (const node of nodesByName.values()) {
    if (leased.has(node.name)) continue;
    // In a suspect list, a lease seen by the last check and missing now is not judged yet.
    if (suspect !== undefined && observations.has(node.name)) continue;
    verdicts.push(judgeNodeWithoutLease(ctx, node));
  }
  verdicts.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));

  return {
    cluster: snapshot.cluster,
    checkedAt: now,
    serverTime: snapshot.serverTime,
    degraded: snapshot.degraded,
    suspect: [suspect, nodeListSuspect].filter((why) => why !== undefined).join('; ') || undefined,
    nodes: verdicts,
    ...tally(verdicts),
    observations: ctx.next,
    ...recheckOf(ctx.rechecks),
  };
}

/** One re-check of the cluster, at the earliest suspect's time, naming every suspect. */
function recheckOf(rechecks: readonly { lease: string; at: number }[]) {
  if (rechecks.length === 0) return {};
  const at = Math.min(...rechecks.map((r) => r.at));
  return { recheck: { at, leases: rechecks.map((r) => r.lease).sort() } };
}
