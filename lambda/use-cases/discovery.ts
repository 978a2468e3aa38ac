/**
 * Discovery, what a `{ "discover": true }` invocation runs: search every region of every account
 * of `discover` for EKS clusters, judge which are watched (ACTIVE and matching the tag filter, their
 * settings from their tags), compare with the set remembered from the last run, and announce each
 * change once by a NOTICE: a cluster appeared, was deleted, stopped matching, or carries a bad tag.
 *
 * Order, so that nothing is lost and little is doubled: the changed records are written first
 * (a new cluster is watched even while SNS refuses its NOTICE), then each NOTICE is published, then
 * what was announced is recorded. A NOTICE not accepted is tried again at the next run; a response
 * lost after SNS accepted it is at most one duplicate. A scope that could not be searched keeps its
 * clusters as they were (never taken for deleted), and the invocation fails after the others are
 * done, so that the function's error alarm says discovery is broken.
 */
import { discoveryNotice } from '../core/watchdog-alerts.js';
import type {
  ClusterFinder,
  DiscoveredRecord,
  DiscoveredState,
  DiscoveryStore,
  FoundEksCluster,
  Notifier,
  SearchScope,
  StructuredLogger,
} from '../ports/index.js';
import { type DiscoverSettings, discoveredSettings, matchesTags } from '../settings/discovery.js';
import {
  type AccessDeps,
  accessAdvice,
  changeMessage,
  sameNameMessage,
} from './discovery-notices.js';

export interface DiscoveryDeps extends AccessDeps {
  readonly finder: ClusterFinder;
  readonly store: DiscoveryStore;
  readonly notifier: Notifier;
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
 * cluster, or DELETING, and it is stored as gone and announced by discovery's own NOTICE, once
 * (discovery's next run finds it announced). ACTIVE or any other status, EKS refusing or slower
 * than DELETED_ASK_BUDGET_MS: false, and the WATCHDOG pages. A cluster discovery no longer watches
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
    if (found !== undefined && found.status !== 'DELETING') return false;
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
  const next = new Map<string, DiscoveredRecord>();
  const arns = new Map<string, string>();
  for (const cluster of found) {
    const { settings, tagProblems } = discoveredSettings(cluster);
    const { name } = settings;
    if (listed.has(name)) continue; // the listed cluster wins
    const matching = matchesTags(discover, cluster.tags);
    const first = next.get(name);
    if (first !== undefined) {
      logger.warn('discovered a second cluster of this name; tag one lease-watchdog/name', {
        cluster: name,
        region: cluster.region,
        roleArn: cluster.roleArn,
      });
      // Said (once) when both would be watched: the second is not.
      if (first.state === 'watched' && stateOf(cluster, matching, undefined) === 'watched') {
        const sameName = first.sameName ?? [arns.get(name) ?? ''];
        next.set(name, { ...first, sameName: [...sameName, arnOf(cluster)] });
      }
      continue;
    }
    const previous = before.get(name);
    const state = stateOf(cluster, matching, previous);
    if (state === undefined || (state !== 'watched' && previous === undefined)) continue;
    arns.set(name, arnOf(cluster));
    next.set(name, {
      name,
      state,
      settings,
      tagProblems: state === 'watched' ? tagProblems : [],
      ...(previous?.announcedState ? { announcedState: previous.announcedState } : {}),
      announcedTags: previous?.announcedTags ?? [],
      ...(previous?.announcedSameName ? { announcedSameName: previous.announcedSameName } : {}),
    });
  }
  for (const record of remembered) {
    if (next.has(record.name) || failedScopes.has(scopeOfRecord(record))) continue;
    if (listed.has(record.name)) continue; // listed now: the listed cluster is watched
    next.set(record.name, record.state === 'watched' ? { ...record, state: 'gone' } : record);
  }
  return [...next.values()];
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

/** Writes what changed, publishes each NOTICE, records what was announced. */
async function announce(
  deps: DiscoveryDeps,
  remembered: readonly DiscoveredRecord[],
  next: readonly DiscoveredRecord[],
  signal?: AbortSignal,
): Promise<Omit<DiscoveryReport, 'failedScopes'>> {
  const before = new Map(remembered.map((r) => [r.name, stableJson(r)]));
  await deps.store.save(
    next.filter((r) => before.get(r.name) !== stableJson(r)),
    signal,
  );
  const report = { appeared: [] as string[], deleted: [] as string[], dropped: [] as string[] };
  const announced: DiscoveredRecord[] = [];
  let notices = 0;
  for (const record of next) {
    const change = pendingChange(record);
    const newTags = record.tagProblems.filter((p) => !record.announcedTags.includes(p));
    let done = record;
    if (change !== undefined && (await publishChange(deps, record, change, signal))) {
      done = { ...done, announcedState: record.state };
      notices++;
      if (change === 'appeared') report.appeared.push(record.name);
      else if (change === 'deleted') report.deleted.push(record.name);
      else report.dropped.push(record.name);
    } else if (change === undefined && record.state !== record.announcedState) {
      done = { ...done, announcedState: record.state };
    }
    if (newTags.length > 0 && (await publishTags(deps, record, newTags, signal))) {
      done = { ...done, announcedTags: record.tagProblems };
      notices++;
    }
    if (sameNameUnsaid(record) && (await publishSameName(deps, record, signal))) {
      done = { ...done, announcedSameName: record.sameName };
      notices++;
    }
    if (done !== record) announced.push(done);
  }
  await deps.store.save(announced, signal);
  const watched = next.filter((r) => r.state === 'watched').length;
  return { watched, ...report, notices };
}

async function publishChange(
  deps: DiscoveryDeps,
  record: DiscoveredRecord,
  change: 'appeared' | 'deleted' | 'dropped',
  signal?: AbortSignal,
): Promise<boolean> {
  const advice = change === 'appeared' ? await accessAdvice(deps, record, signal) : undefined;
  const notice = discoveryNotice(
    record.name,
    { change, message: changeMessage(record, change), ...(advice ? { advice } : {}) },
    deps.clock(),
  );
  return publish(deps, notice, signal);
}

async function publishTags(
  deps: DiscoveryDeps,
  record: DiscoveredRecord,
  problems: readonly string[],
  signal?: AbortSignal,
): Promise<boolean> {
  const notice = discoveryNotice(
    record.name,
    { change: 'tag-invalid', message: problems.join('; ') },
    deps.clock(),
  );
  return publish(deps, notice, signal);
}

/** Whether the record's clusters of one name are yet to be announced (a watched one's). */
function sameNameUnsaid(record: DiscoveredRecord): boolean {
  const said = record.announcedSameName ?? [];
  return record.state === 'watched' && (record.sameName ?? []).some((arn) => !said.includes(arn));
}

async function publishSameName(
  deps: DiscoveryDeps,
  record: DiscoveredRecord,
  signal?: AbortSignal,
): Promise<boolean> {
  const { message, advice } = sameNameMessage(record);
  const notice = discoveryNotice(
    record.name,
    { change: 'same-name', message, advice },
    deps.clock(),
  );
  return publish(deps, notice, signal);
}

/** Whether the notifier accepted it; a refusal is logged and tried again at the next run. */
async function publish(
  deps: DiscoveryDeps,
  notice: ReturnType<typeof discoveryNotice>,
  signal?: AbortSignal,
): Promise<boolean> {
  try {
    await deps.notifier.publish(notice, signal);
    deps.logger.info('discovery announced', {
      cluster: notice.cluster,
      change: notice.notice?.topic === 'discovery' ? notice.notice.change : undefined,
    });
    return true;
  } catch (error) {
    deps.logger.error('discovery could not announce; tried again at its next run', {
      cluster: notice.cluster,
      error: error instanceof Error ? error.message : String(error),
    });
    return false;
  }
}

/** JSON with every object's keys sorted: the same record, the same text, however it was built. */
function stableJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}
