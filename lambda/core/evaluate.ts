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
import { type LeaseReads, latestLeases, observeAll } from './lease-observations.js';
import type { Evaluation, NodeVerdict, Observations, Snapshot } from './model.js';
import { NODE_FACT_LABELS } from './node-facts.js';
import {
  healthyVerdict,
  type JudgeContext,
  judgeLease,
  judgeNodeWithoutLease,
  LEGACY_ZONE_LABEL,
  renewedReason,
  ZONE_LABEL,
} from './node-verdicts.js';
import type { Policy } from './policy.js';
import { evaluationOf, HealthyRows, VerdictList } from './verdict-list.js';
import { tally } from './verdict-tally.js';

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

/** At least this many of the last check's leases missing (and at least half) make a list suspect. */
export const SUSPECT_VANISHED_MIN = 3;

/**
 * A lease list that lacks most of the leases the last check saw (at least half of them, and at
 * least SUSPECT_VANISHED_MIN) is suspect: a proxy, a cache or an API server bug answering part of
 * the list, more often than half a cluster deleted in one minute. Its check is degraded: nodes
 * absent from it are not taken for gone, a node whose lease vanished is not judged (no wave of
 * RESOLVED "removed", no wave of missing-lease). The next check, compared with this one, confirms.
 */
function suspectList(carried: number, previous: Observations): string | undefined {
  const vanished = previous.size - carried;
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
function suspectNodeList(reads: LeaseReads): string | undefined {
  let live = 0;
  let unlisted = 0;
  for (let i = 0; i < reads.length; i++) {
    const { renew, node, previous } = reads.at(i);
    if (!previous || renew.kind !== 'time' || renew.raw === previous.renewTime) continue;
    live++;
    if (node === undefined) unlisted++;
  }
  if (unlisted < SUSPECT_VANISHED_MIN || unlisted * 2 < live) return undefined;
  return `the Node list lacks ${unlisted} of the ${live} nodes whose leases were renewed since the last check: suspect, checked on leases alone`;
}

/**
 * Gives every node, and every lease without a node, one verdict. Pure: `now` is the watchdog's
 * clock (epoch ms); the returned observations are to be passed to the next check.
 * `afterReadFailure`: the look before this one failed to read the cluster (a stall our looks ran
 * into).
 */
export function evaluate(
  snapshot: Snapshot,
  observations: Observations,
  policy: Policy,
  { now, afterReadFailure = false }: { readonly now: number; readonly afterReadFailure?: boolean },
): Evaluation {
  const { reads, unleased } = latestLeases(snapshot.leases, snapshot.nodes ?? [], observations);
  const nodeListSuspect = snapshot.nodes === null ? undefined : suspectNodeList(reads);
  const judged = nodeListSuspect === undefined ? snapshot : { ...snapshot, nodes: null };
  // On leases alone (a suspect Node list), no lease has a Node, and no Node is judged.
  if (nodeListSuspect !== undefined) reads.withoutNodes();
  const seen = { snapshot: judged, policy, now, previous: observations };
  const all = observeAll(seen, reads);
  const frozen = all.frozen || afterReadFailure;
  const renewedReasons = new Map<number, string>();
  const ctx: JudgeContext = {
    ...seen,
    next: new Map(),
    frozen,
    rechecks: [],
    renewedReasons,
    healthy: new HealthyRows((seconds) => renewedReason(renewedReasons, seconds), reads.length),
  };

  const verdicts: NodeVerdict[] = [];
  for (let i = 0; i < reads.length; i++) {
    const verdict = judgeLease(ctx, reads.at(i), all.observed.at(i));
    if (verdict !== undefined) verdicts.push(verdict);
  }
  const suspect = suspectList(reads.carried, observations);
  for (const node of nodeListSuspect === undefined ? unleased : []) {
    // In a suspect list, a lease seen by the last check and missing now is not judged yet.
    if (suspect !== undefined && observations.has(node.name)) continue;
    verdicts.push(judgeNodeWithoutLease(ctx, node));
  }
  const list = VerdictList.of(ctx.healthy, healthyVerdict, verdicts);

  return evaluationOf(
    {
      cluster: snapshot.cluster,
      checkedAt: now,
      serverTime: snapshot.serverTime,
      degraded: snapshot.degraded,
      suspect:
        [suspect, nodeListSuspect].filter((why) => why !== undefined).join('; ') || undefined,
      ...tally(list),
      observations: ctx.next,
      ...(all.lateSightings > 0 ? { lateSightings: all.lateSightings } : {}),
      ...recheckOf(ctx.rechecks),
    },
    list,
  );
}

/**
 * The looks the suspects ask for: one per suspect, at the moment a look can confirm it, whatever
 * other looks are asked for. Suspects whose moments fall within one second of the first of them
 * (SQS counts its delays in whole seconds) share a look, at the latest of their moments.
 */
function recheckOf(rechecks: readonly { lease: string; at: number }[]) {
  if (rechecks.length === 0) return {};
  const looks: { first: number; at: number; leases: string[] }[] = [];
  for (const { lease, at } of [...rechecks].sort((a, b) => a.at - b.at)) {
    const last = looks.at(-1);
    if (last !== undefined && at - last.first < 1_000) {
      last.at = at;
      last.leases.push(lease);
    } else looks.push({ first: at, at, leases: [lease] });
  }
  return { rechecks: looks.map(({ at, leases }) => ({ at, leases: leases.sort() })) };
}
