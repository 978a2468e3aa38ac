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
import { EMPTY_ALERT_STATE } from '../core/alert-state.js';
import { discoveryNotice } from '../core/watchdog-alerts.js';
import type {
  ClusterFinder,
  DiscoveredRecord,
  DiscoveredState,
  DiscoveryStore,
  FoundEksCluster,
  Notifier,
  SearchScope,
  StateStore,
  StructuredLogger,
} from '../ports/index.js';
import { identityOf } from '../ports/index.js';
import { type DiscoverSettings, discoveredSettings, matchesTags } from '../settings/discovery.js';
import { canonical } from './check-cycle.js';
import {
  type AccessDeps,
  accessAdvice,
  changeMessage,
  sameNameMessage,
  settingsChange,
  taggedSettings,
} from './discovery-notices.js';

export interface DiscoveryDeps extends AccessDeps {
  readonly finder: ClusterFinder;
  readonly store: DiscoveryStore;
  readonly notifier: Notifier;
  /** The checks' state, started afresh for a new cluster behind a remembered name. */
  readonly states?: Pick<StateStore, 'load' | 'save'> | undefined;
  readonly clock: () => number;
}

export interface DiscoveryReport {
  readonly watched: number;
  readonly appeared: readonly string[];
  readonly deleted: readonly string[];
  readonly dropped: readonly string[];
  readonly notices: number;
  readonly failedScopes: number;
}

export class DiscoveryError extends Error {
  override readonly name = 'WatchdogError';
}

/** Every place `discover` names: each region, of the function's account and of each role's. */
export function scopesOf(discover: DiscoverSettings): SearchScope[] {
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
  if (discover === undefined) throw new DiscoveryError('discover is not set: nothing to discover');
  const scopes = scopesOf(discover);
  const [searched, remembered] = await Promise.all([
    Promise.allSettled(scopes.map((scope) => deps.finder.find(scope, signal))),
    deps.store.load(signal),
  ]);
  const found: FoundEksCluster[] = [];
  const failed = new Set<string>();
  searched.forEach((result, i) => {
    const scope = scopes[i] as SearchScope;
    if (result.status === 'fulfilled') found.push(...result.value);
    else {
      failed.add(scopeKey(scope));
      deps.logger.error('discovery could not search', {
        region: scope.region,
        roleArn: scope.roleArn,
        error: result.reason instanceof Error ? result.reason.message : String(result.reason),
      });
    }
  });
  const listed = new Set(deps.settings.clusters.map((c) => c.name));
  const next = judge(found, remembered, discover, listed, failed, deps.logger);
  const report = await announce(deps, remembered, next, signal);
  if (failed.size > 0) {
    throw new DiscoveryError(
      `discovery could not search ${failed.size} of ${scopes.length} scopes (see the log); their clusters stay as they were`,
    );
  }
  return { ...report, failedScopes: failed.size };
}

/**
 * How long asking EKS whether an unreadable cluster is deleted may hold its WATCHDOG back: the time
 * a FIRING's evidence may take (a WATCHDOG reads none), within what a check keeps for delivering.
 */
export const DELETED_ASK_BUDGET_MS = 2_000;

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

/** Every cluster's record as of this run (pure): found ones judged, vanished ones gone. */
export function judge(
  found: readonly FoundEksCluster[],
  remembered: readonly DiscoveredRecord[],
  discover: DiscoverSettings,
  listed: ReadonlySet<string>,
  failedScopes: ReadonlySet<string>,
  logger: StructuredLogger,
): DiscoveredRecord[] {
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
    const record = judgeName(clusters, previous, discover, logger);
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
  discover: DiscoverSettings,
  logger: StructuredLogger,
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

/** Which cluster a record is of (undefined: a record of an older version). */
function identityIn({ settings: { auth } }: DiscoveredRecord): string | undefined {
  return auth.mode === 'eks' ? auth.identity : undefined;
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

/** The NOTICE a record's change calls for (none when nothing is to be said). */
function pendingChange(record: DiscoveredRecord) {
  if (record.state === record.announcedState) return undefined;
  if (record.state === 'watched') return 'appeared' as const;
  // Gone or dropped before its arrival was ever announced: nothing to take back.
  if (record.announcedState !== 'watched') return undefined;
  return record.state === 'gone' ? ('deleted' as const) : ('dropped' as const);
}

/** How long a run holds the right to announce a deletion: past the longest invocation (15 min). */
export const ANNOUNCE_CLAIM_MS = 15 * 60_000;

/**
 * Writes what changed (a deletion only by its claim: one check and one discovery run finding it
 * deleted at once announce it once), publishes each NOTICE, records what was announced.
 */
async function announce(
  deps: DiscoveryDeps,
  remembered: readonly DiscoveredRecord[],
  next: readonly DiscoveredRecord[],
  signal?: AbortSignal,
): Promise<Omit<DiscoveryReport, 'failedScopes'>> {
  const before = new Map(remembered.map((r) => [r.name, r]));
  await forgetReplaced(deps, before, next, signal);
  const deletions = next.filter((r) => pendingChange(r) === 'deleted');
  await deps.store.save(
    next.filter((r) => !deletions.includes(r) && canonical(before.get(r.name)) !== canonical(r)),
    signal,
  );
  const claimed = await claimDeletions(deps, before, deletions, signal);
  const report = { appeared: [] as string[], deleted: [] as string[], dropped: [] as string[] };
  const announced: DiscoveredRecord[] = [];
  let notices = 0;
  for (const record of next) {
    if (deletions.includes(record) && !claimed.has(record)) continue; // another run announces it
    const change = pendingChange(record);
    let done = record;
    if (change !== undefined && (await publishChange(deps, record, change, signal))) {
      done = { ...done, announcedState: record.state, announcing: undefined };
      if (change === 'appeared') done = { ...done, announcedSettings: taggedSettings(record) };
      notices++;
      report[change].push(record.name);
    } else if (change === undefined && record.state !== record.announcedState) {
      done = { ...done, announcedState: record.state };
    } else if (claimed.has(record)) {
      done = { ...done, announcing: undefined }; // not accepted: the next run claims it again
    }
    const aside = await announceAside(deps, record, signal);
    if (aside.length > 0) done = Object.assign({ ...done }, ...aside);
    notices += aside.length;
    if (done !== record) announced.push(done);
  }
  await deps.store.save(announced, signal);
  const watched = next.filter((r) => r.state === 'watched').length;
  return { watched, ...report, notices };
}

/**
 * The deletions this run announces: each claimed by a conditional write over the record as loaded
 * (another run's claim, or its record of the announcement, wins). A claim whose NOTICE was not
 * accepted is given back; one whose run died is taken again once ANNOUNCE_CLAIM_MS has passed.
 */
async function claimDeletions(
  deps: DiscoveryDeps,
  before: ReadonlyMap<string, DiscoveredRecord>,
  deletions: readonly DiscoveredRecord[],
  signal?: AbortSignal,
): Promise<Set<DiscoveredRecord>> {
  const now = deps.clock();
  const claimed = new Set<DiscoveredRecord>();
  for (const record of deletions) {
    if ((record.announcing ?? 0) > now) continue; // another run is announcing it
    const claim = { ...record, announcing: now + ANNOUNCE_CLAIM_MS };
    if (await deps.store.claim(claim, before.get(record.name), signal)) claimed.add(record);
  }
  return claimed;
}

/**
 * A new cluster behind a remembered name (another ARN, id or creation time): its checks start from
 * nothing, never judging the other cluster's nodes (its silent ones "deleted"). What the state
 * still has to send (its outbox, on-call events) is kept. Done before its record is written, so
 * that no check reads it with the other's state; a failure fails the run, which tries again.
 */
async function forgetReplaced(
  deps: DiscoveryDeps,
  before: ReadonlyMap<string, DiscoveredRecord>,
  next: readonly DiscoveredRecord[],
  signal?: AbortSignal,
): Promise<void> {
  for (const record of next) {
    const { name } = record;
    const previous = before.get(name);
    const replaced =
      previous && identityIn(previous) && identityIn(previous) !== identityIn(record);
    if (deps.states === undefined || !replaced) continue;
    const stored = await deps.states.load(name, signal);
    if (stored.version === 0) continue;
    const state = { ...stored.state, observations: new Map(), alerts: EMPTY_ALERT_STATE };
    await deps.states.save(name, { ...state, givenUp: null }, stored.version, signal);
    deps.logger.info('another cluster behind a watched name: its checks start afresh', {
      cluster: name,
    });
  }
}

async function publishChange(
  deps: DiscoveryDeps,
  record: DiscoveredRecord,
  change: 'appeared' | 'deleted' | 'dropped',
  signal?: AbortSignal,
): Promise<boolean> {
  const advice = change === 'appeared' ? await accessAdvice(deps, record, signal) : undefined;
  const message = changeMessage(record, change);
  return publish(deps, record.name, { change, message, ...(advice ? { advice } : {}) }, signal);
}

/**
 * The NOTICEs beside a change of state, each once: tags ignored, settings changed by tags, a name
 * taken twice. What each accepted one records as said.
 */
async function announceAside(
  deps: DiscoveryDeps,
  record: DiscoveredRecord,
  signal?: AbortSignal,
): Promise<Partial<DiscoveredRecord>[]> {
  const said: Partial<DiscoveredRecord>[] = [];
  const say = (info: Parameters<typeof discoveryNotice>[1]) =>
    publish(deps, record.name, info, signal);
  const newTags = record.tagProblems.filter((p) => !record.announcedTags.includes(p));
  if (newTags.length > 0 && (await say({ change: 'tag-invalid', message: newTags.join('; ') }))) {
    said.push({ announcedTags: record.tagProblems });
  }
  const changed = settingsChange(record);
  if (changed && (await say({ change: 'settings-changed', message: changed }))) {
    said.push({ announcedSettings: taggedSettings(record) });
  }
  if (sameNameUnsaid(record) && (await say({ change: 'same-name', ...sameNameMessage(record) }))) {
    said.push({ announcedSameName: record.sameName });
  }
  return said;
}

/** Whether the record's clusters of one name are yet to be announced (a watched one's). */
function sameNameUnsaid(record: DiscoveredRecord): boolean {
  const said = record.announcedSameName ?? [];
  return record.state === 'watched' && (record.sameName ?? []).some((arn) => !said.includes(arn));
}

/** Whether the notifier accepted it; a refusal is logged and tried again at the next run. */
async function publish(
  deps: DiscoveryDeps,
  cluster: string,
  info: Parameters<typeof discoveryNotice>[1],
  signal?: AbortSignal,
): Promise<boolean> {
  try {
    await deps.notifier.publish(discoveryNotice(cluster, info, deps.clock()), signal);
    deps.logger.info('discovery announced', { cluster, change: info.change });
    return true;
  } catch (error) {
    deps.logger.error('discovery could not announce; tried again at its next run', {
      cluster,
      error: error instanceof Error ? error.message : String(error),
    });
    return false;
  }
}
