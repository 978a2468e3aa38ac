/**
 * Discovery, what a `{ "discover": true }` invocation runs: search every region of every account
 * of `discover` for EKS clusters, judge which are watched (ACTIVE and matching the tag filter, their
 * settings from their tags), compare with the set remembered from the last run, and announce each
 * change once by a NOTICE: a cluster appeared, was deleted, stopped matching, or carries a bad tag.
 * A cluster is its ARN and creation time (identityOf), not its name: a watched one keeps its name
 * against any later claim, and another behind a remembered name is a new cluster.
 *
 * Order, so that nothing is lost and little is doubled: the changed records are written first
 * (a new cluster is watched even while SNS refuses its NOTICE), then each NOTICE is published, then
 * what was announced is recorded. A NOTICE not accepted is tried again at the next run; a response
 * lost after SNS accepted it is at most one duplicate. A scope that could not be searched keeps its
 * clusters as they were (never taken for deleted), and the invocation fails after the others are
 * done, so that the function's error alarm says discovery is broken.
 */
import type {
  ClusterFinder,
  DiscoveredRecord,
  DiscoveredState,
  FoundEksCluster,
  SearchScope,
  StructuredLogger,
} from '../ports/index.js';
import { identityOf } from '../ports/index.js';
import { type DiscoverSettings, discoveredSettings, matchesTags } from '../settings/discovery.js';
import { announce, identityIn, type NoticeDeps, taggedSettings } from './discovery-notices.js';
import { InvocationError } from './invocation.js';

export interface DiscoveryDeps extends NoticeDeps {
  readonly finder: ClusterFinder;
}

/** What a run announced (discovery-notices.ts), and the scopes it could not search. */
export type DiscoveryReport = Awaited<ReturnType<typeof announce>> & { failedScopes: number };

/** Every place `discover` names: each region, of the function's account and of each role's. */
function scopesOf(discover: DiscoverSettings): SearchScope[] {
  const roles = [undefined, ...(discover.accounts ?? []).map((a) => a.roleArn)];
  return discover.regions.flatMap((region) => roles.map((roleArn) => ({ region, roleArn })));
}

const scopeKey = (scope: SearchScope) => `${scope.roleArn ?? ''}|${scope.region}`;

/** Where a remembered cluster was found. */
function scopeOfRecord(record: DiscoveredRecord): string {
  const { auth } = record.settings;
  return auth.mode === 'eks' ? scopeKey({ region: auth.region ?? '', roleArn: auth.roleArn }) : '';
}

export async function runDiscovery(
  deps: DiscoveryDeps,
  signal?: AbortSignal,
): Promise<DiscoveryReport> {
  const { discover } = deps.settings;
  if (discover === undefined) throw new InvocationError('discover is not set: nothing to discover');
  const scopes = scopesOf(discover);
  const [searched, remembered] = await Promise.all([
    Promise.allSettled(scopes.map((scope) => deps.finder.find(scope, signal))),
    deps.store.load(signal),
  ]);
  const found = searched.flatMap((result) => (result.status === 'fulfilled' ? result.value : []));
  const failed = new Set<string>();
  searched.forEach((result, i) => {
    const scope = scopes[i] as SearchScope;
    if (result.status === 'fulfilled') return;
    failed.add(scopeKey(scope));
    deps.logger.error('discovery could not search', {
      region: scope.region,
      roleArn: scope.roleArn,
      error: result.reason instanceof Error ? result.reason.message : String(result.reason),
    });
  });
  const listed = new Set(deps.settings.clusters.map((c) => c.name));
  const next = judge(found, remembered, failed, { discover, listed, logger: deps.logger });
  const report = await announce(deps, remembered, next, signal);
  if (failed.size > 0) {
    throw new InvocationError(
      `discovery could not search ${failed.size} of ${scopes.length} scopes (see the log); their clusters stay as they were`,
    );
  }
  return { ...report, failedScopes: failed.size };
}

/**
 * How long asking EKS whether an unreadable cluster is deleted may hold its WATCHDOG back: the time
 * a FIRING's evidence may take (a WATCHDOG reads none), within what a check keeps for delivering.
 */
const DELETED_ASK_BUDGET_MS = 2_000;

/**
 * Asked before a discovered cluster that cannot be read is paged (its WATCHDOG): whether it is
 * deleted. EKS is asked (eks:DescribeCluster, through the scope discovery found it in): no such
 * cluster, DELETING, or another cluster behind its name (created again), and it is stored as gone
 * and announced by discovery's own NOTICE, once (its claim: discovery's run finding it too does
 * not say it again). ACTIVE or any other status, EKS refusing or slower than
 * DELETED_ASK_BUDGET_MS: false, and the WATCHDOG pages. A cluster discovery no longer watches
 * (gone, dropped: a directory read before its run) is not paged either. Never rejects.
 */
export async function deletedSinceDiscovery(
  deps: DiscoveryDeps,
  name: string,
  signal?: AbortSignal,
): Promise<boolean> {
  const bounded = AbortSignal.any([
    AbortSignal.timeout(DELETED_ASK_BUDGET_MS),
    ...(signal ? [signal] : []),
  ]);
  let record: DiscoveredRecord | undefined;
  try {
    record = await deps.store.loadOne(name, bounded);
    const auth = record?.settings.auth;
    if (record === undefined || auth?.mode !== 'eks') return false;
    if (record.state !== 'watched') return true;
    const scope = { region: auth.region ?? '', roleArn: auth.roleArn };
    const found = await deps.finder.describe(scope, auth.clusterName, bounded);
    // Another cluster behind its name (created again): the one watched is deleted.
    const same = found !== undefined && (auth.identity ?? identityOf(found)) === identityOf(found);
    if (same && found.status !== 'DELETING') return false;
  } catch (error) {
    deps.logger.warn('could not ask EKS whether the unreadable cluster is deleted; paged', {
      cluster: name,
      error: error instanceof Error ? error.message : String(error),
    });
    return false;
  }
  deps.logger.info('the unreadable cluster is deleted: announced, not paged', { cluster: name });
  // What was not stored or announced now is by discovery's next run: it finds the cluster gone.
  await announce(deps, [record], [{ ...record, state: 'gone' }], bounded).catch((error: unknown) =>
    deps.logger.error('could not store the deleted cluster; discovery announces it', {
      cluster: name,
      error: error instanceof Error ? error.message : String(error),
    }),
  );
  return true;
}

/** The state a found cluster is in now, or undefined while it is not to be watched yet. */
function stateOf(
  cluster: FoundEksCluster,
  matching: boolean,
  previous: DiscoveredRecord | undefined,
): DiscoveredState | undefined {
  if (cluster.status === 'DELETING') return 'gone';
  if (!matching || cluster.status === 'FAILED') return 'dropped';
  if (cluster.status === 'ACTIVE') return 'watched';
  // CREATING, PENDING, UPDATING: a watched cluster stays watched; a new one waits for ACTIVE.
  return previous?.state === 'watched' ? 'watched' : undefined;
}

/** What a run's clusters are judged by: the tag filter, and the names listed (they win). */
interface Judging {
  readonly discover: DiscoverSettings;
  readonly listed: ReadonlySet<string>;
  readonly logger: StructuredLogger;
}

/** Every cluster's record as of this run (pure): found ones judged, vanished ones gone. */
function judge(
  found: readonly FoundEksCluster[],
  remembered: readonly DiscoveredRecord[],
  failedScopes: ReadonlySet<string>,
  by: Judging,
): DiscoveredRecord[] {
  const { listed } = by;
  const before = new Map(remembered.map((r) => [r.name, r]));
  const byName = new Map<string, FoundEksCluster[]>();
  for (const cluster of found) {
    const { name } = discoveredSettings(cluster).settings;
    if (!listed.has(name)) byName.set(name, [...(byName.get(name) ?? []), cluster]); // listed wins
  }
  const next = new Map<string, DiscoveredRecord>();
  for (const [name, clusters] of byName) {
    const previous = before.get(name);
    // Its own scope could not be searched: it stays as it was, whatever else claims its name.
    if (previous && failedScopes.has(scopeOfRecord(previous))) continue;
    const record = judgeName(clusters, previous, by);
    if (record !== undefined) next.set(name, record);
  }
  for (const record of remembered) {
    if (next.has(record.name) || failedScopes.has(scopeOfRecord(record))) continue;
    if (listed.has(record.name)) continue; // listed now: the listed cluster is watched
    next.set(record.name, record.state === 'watched' ? { ...record, state: 'gone' } : record);
  }
  return [...next.values()];
}

/**
 * The record of one name: the cluster remembered under it, when found (a later claim to its name
 * never displaces it), else the first found; the others are named (`sameName`) when both would be
 * watched. A cluster other than the one remembered is a new cluster: nothing of the other's
 * record is carried to it (it appears, and is granted access, anew).
 */
function judgeName(
  clusters: readonly FoundEksCluster[],
  previous: DiscoveredRecord | undefined,
  { discover, logger }: Judging,
): DiscoveredRecord | undefined {
  const kept = previous && clusters.find((c) => isRemembered(previous, c));
  const [cluster, ...others] = kept ? [kept, ...clusters.filter((c) => c !== kept)] : clusters;
  if (cluster === undefined) return undefined;
  const judged = discoveredSettings(cluster);
  const identity = identityOf(cluster);
  const settings = { ...judged.settings, auth: { ...judged.settings.auth, identity } };
  const carried = kept === undefined ? undefined : previous;
  const state = stateOf(cluster, matchesTags(discover, cluster.tags), carried);
  if (state === undefined || (state !== 'watched' && carried === undefined)) return undefined;
  const contenders = others.filter(
    (other) => stateOf(other, matchesTags(discover, other.tags), undefined) === 'watched',
  );
  for (const other of others) {
    logger.warn('discovered a second cluster of this name; tag one lease-watchdog/name', {
      cluster: settings.name,
      region: other.region,
      roleArn: other.roleArn,
    });
  }
  return {
    name: settings.name,
    state,
    settings,
    tagProblems: state === 'watched' ? judged.tagProblems : [],
    ...(carried?.announcedState ? { announcedState: carried.announcedState } : {}),
    announcedTags: carried?.announcedTags ?? [],
    // Said (once) when both would be watched: the other is not.
    ...(state === 'watched' && contenders.length > 0
      ? { sameName: [arnOf(cluster), ...contenders.map(arnOf)] }
      : {}),
    ...(carried?.announcedSameName ? { announcedSameName: carried.announcedSameName } : {}),
    ...(carried?.announcing ? { announcing: carried.announcing } : {}),
    // Remembered before settings were announced: as it was then.
    ...(carried ? { announcedSettings: carried.announcedSettings ?? taggedSettings(carried) } : {}),
  };
}

/** Whether `cluster` is the one `record` remembers (a record without identity: the same place). */
function isRemembered(record: DiscoveredRecord, cluster: FoundEksCluster): boolean {
  const identity = identityIn(record);
  if (identity !== undefined) return identity === identityOf(cluster);
  const { auth } = record.settings;
  return (
    auth.mode === 'eks' &&
    auth.clusterName === cluster.clusterName &&
    auth.region === cluster.region &&
    auth.roleArn === cluster.roleArn
  );
}

/** A found cluster's ARN, as EKS said it (else as EKS would write it, its account unknown). */
function arnOf(cluster: FoundEksCluster): string {
  return cluster.arn ?? `arn:aws:eks:${cluster.region}:?:cluster/${cluster.clusterName}`;
}
