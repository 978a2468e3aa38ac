/**
 * Discovery's NOTICEs: what each says (which cluster, where, what changed; and, for a cluster that
 * appeared, how the watchdog gets in: the access entry it made itself (`discover.grantAccess`),
 * or the one command line that makes it, and the RBAC its Kubernetes group needs), and how each
 * change is written, announced once and recorded (announce).
 */
import { EMPTY_ALERT_STATE } from '../core/alert-state.js';
import type { NoticeInfo } from '../core/notification.js';
import { composeNotice } from '../core/watchdog-alerts.js';
import type {
  ClusterAccess,
  DiscoveredRecord,
  DiscoveryStore,
  Notifier,
  StateStore,
  StructuredLogger,
} from '../ports/index.js';
import { KUBERNETES_GROUP, type WatchdogSettings } from '../settings/index.js';
import { canonical } from './check-cycle.js';

/** What announcing discovery's changes (and granting access, or advising it) needs. */
export interface NoticeDeps {
  readonly settings: WatchdogSettings;
  /** Lets the function into each cluster that appears (`discover.grantAccess`); none: advice. */
  readonly access?: ClusterAccess | undefined;
  /** The function's role, the principal of the access entry in its own account. */
  readonly functionRoleArn?: string | undefined;
  readonly logger: StructuredLogger;
  readonly store: DiscoveryStore;
  readonly notifier: Notifier;
  /** The checks' state, started afresh for a new cluster behind a remembered name. */
  readonly states?: Pick<StateStore, 'load' | 'save'> | undefined;
  readonly clock: () => number;
}

type Change = 'appeared' | 'deleted' | 'dropped';
/** What one of discovery's NOTICEs says about a cluster. */
type News = Omit<Extract<NoticeInfo, { topic: 'discovery' }>, 'topic'>;

/** Where a discovered cluster is, for people: `'prod' in eu-west-1 (through role …)`. */
function where(record: DiscoveredRecord): string {
  const { auth } = record.settings;
  if (auth.mode !== 'eks') return `'${record.name}'`;
  const through = auth.roleArn === undefined ? '' : ` through role ${auth.roleArn}`;
  return `EKS cluster '${auth.clusterName}' in ${auth.region ?? '?'}${through}`;
}

function changeMessage(record: DiscoveredRecord, change: Change): string {
  switch (change) {
    case 'appeared':
      return `${where(record)} is ACTIVE and matches discover: watched as '${record.name}'`;
    case 'deleted':
      return `${where(record)} is deleted (or being deleted): no longer watched, nothing pages for it`;
    case 'dropped':
      return `${where(record)} no longer matches discover (its tags, or it failed): no longer watched`;
  }
}

/** What a discovered cluster's tags set: `namespace kube-node-lease, exclude-selector none, …`. */
export function taggedSettings({ settings }: DiscoveredRecord): string {
  const { namespace, excludeSelector = 'none', runbookUrl = 'none' } = settings;
  return `namespace ${namespace}, exclude-selector ${excludeSelector}, runbook-url ${runbookUrl}`;
}

/** A watched cluster's tags changed what is watched since it was last said: what, or undefined. */
function settingsChange(record: DiscoveredRecord): string | undefined {
  const now = taggedSettings(record);
  const said = record.announcedSettings;
  if (record.state !== 'watched' || record.announcedState !== 'watched') return undefined;
  if (said === undefined || said === now) return undefined;
  return `the tags of ${where(record)} changed what is watched: ${now} (was ${said})`;
}

/**
 * Two clusters (or more) discovery would watch under one name: which (their ARNs, the watched one
 * first), and the tag that gives the other a name of its own (`<name>-<its region>`, or
 * `-<its account>` when the region is the same).
 */
function sameNameMessage(record: DiscoveredRecord): { message: string; advice: string } {
  const [watched = '', ...others] = record.sameName ?? [];
  const other = others[0] ?? '';
  const part = (arn: string, i: number) => arn.split(':')[i] ?? '';
  const suffix = part(other, 3) === part(watched, 3) ? part(other, 4) : part(other, 3);
  return {
    message:
      `EKS clusters ${[watched, ...others].join(' and ')} share the name '${record.name}': ` +
      `only ${watched} is watched`,
    advice:
      `give the other a name of its own with the tag lease-watchdog/name, in its account: ` +
      `aws eks tag-resource --region ${part(other, 3)} --resource-arn ${other} ` +
      `--tags lease-watchdog/name=${record.name}-${suffix}`,
  };
}

/** What binds the access entry's group to the reads the watchdog needs, in the cluster. */
const RBAC = `kubectl apply -f deploy/rbac.yaml (in that cluster: group ${KUBERNETES_GROUP})`;

/**
 * For a cluster that appeared: when the function let itself in (`grantAccess`), the RBAC to apply
 * unless the cluster has it; else the command to run (with why the grant failed, when it was tried).
 */
async function accessAdvice(
  deps: NoticeDeps,
  record: DiscoveredRecord,
  signal?: AbortSignal,
): Promise<string | undefined> {
  const { auth } = record.settings;
  if (auth.mode !== 'eks') return undefined;
  // Who reads the cluster: the role its account is reached through, else the function's role.
  const principal = auth.roleArn || deps.functionRoleArn || '<FunctionRoleArn>';
  // The one line that lets it read the cluster (run in the cluster's account): its access entry in
  // the Kubernetes group deploy/rbac.yaml binds (Leases, Nodes, node Events; no Secrets).
  const at = `--cluster-name ${auth.clusterName} --region ${auth.region ?? '<region>'} --principal-arn ${principal}`;
  const command = `aws eks create-access-entry ${at} --kubernetes-groups ${KUBERNETES_GROUP} && ${RBAC}`;
  if (deps.access === undefined || !deps.settings.discover?.grantAccess) {
    return `unless the watchdog already has access: ${command}`;
  }
  try {
    await deps.access.grant(
      { clusterName: auth.clusterName, region: auth.region ?? '', roleArn: auth.roleArn },
      principal,
      signal,
    );
    deps.logger.info('discovery granted the watchdog access', { cluster: record.name });
    return `the watchdog made its access entry; unless the cluster has deploy/rbac.yaml: ${RBAC}`;
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    return `the watchdog could not grant itself access (${why}); run: ${command}`;
  }
}

/** Which cluster a record is of (undefined: a record of an older version). */
export function identityIn({ settings: { auth } }: DiscoveredRecord): string | undefined {
  return auth.mode === 'eks' ? auth.identity : undefined;
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
const ANNOUNCE_CLAIM_MS = 15 * 60_000;

/**
 * Writes what changed (a deletion only by its claim: one check and one discovery run finding it
 * deleted at once announce it once), publishes each NOTICE, records what was announced.
 */
export async function announce(
  deps: NoticeDeps,
  remembered: readonly DiscoveredRecord[],
  next: readonly DiscoveredRecord[],
  signal?: AbortSignal,
): Promise<{ watched: number; notices: number } & Record<Change, string[]>> {
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
    const advice = change === 'appeared' ? await accessAdvice(deps, record, signal) : undefined;
    const said = change && { change, message: changeMessage(record, change) };
    let done = record;
    if (
      said &&
      (await publish(deps, record.name, { ...said, ...(advice && { advice }) }, signal))
    ) {
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
  deps: NoticeDeps,
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
  deps: NoticeDeps,
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

/**
 * The NOTICEs beside a change of state, each once: tags ignored, settings changed by tags, a name
 * taken twice. What each accepted one records as said.
 */
async function announceAside(
  deps: NoticeDeps,
  record: DiscoveredRecord,
  signal?: AbortSignal,
): Promise<Partial<DiscoveredRecord>[]> {
  const said: Partial<DiscoveredRecord>[] = [];
  const say = (info: News) => publish(deps, record.name, info, signal);
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
  deps: NoticeDeps,
  cluster: string,
  info: News,
  signal?: AbortSignal,
): Promise<boolean> {
  try {
    const notice = composeNotice(cluster, deps.clock(), { topic: 'discovery', ...info });
    await deps.notifier.publish(notice, signal);
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
