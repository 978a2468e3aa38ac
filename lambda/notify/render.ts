/**
 * Rendering a Notification as an SNS subject and a plain-text email body. Pure: the only clock
 * is `n.at` (the check's time on the watchdog's clock); no I/O.
 *
 * Subject: one line of printable ASCII, at most 99 characters (SNS wants fewer than 100), starting
 * with `[` (punctuation, which SNS accepts as a first character). Body: fixed-width friendly text,
 * at most `maxBytes` UTF-8 bytes (default 250,000: SNS takes 262,144 bytes for the whole payload,
 * subject and attributes included); long node lists end with "… and 1,234 more nodes".
 */
import type { ClusterReadFailure, Verdict } from '../core/model.js';
import type { AlertNode, Notification, Resolution, StormInfo } from '../core/notification.js';
import { asciiText, cleanText, shellWord, squeeze, truncate, utf8Bytes } from './text.js';

/** SNS: "Subjects must be … less than 100 characters long". */
export const SUBJECT_MAX_CHARS = 99;
/** SNS accepts 262,144 bytes per publish (message, subject and attributes together). */
export const BODY_MAX_BYTES = 250_000;

const LEASE_NAMESPACE = 'kube-node-lease';
const WIDTH = 78;
const LABEL_WIDTH = 17;
const CLUSTER_SUBJECT_CHARS = 40;

// ---------------------------------------------------------------------------------------------
// Subject
// ---------------------------------------------------------------------------------------------

export function renderSubject(n: Notification): string {
  const cluster =
    truncate(squeeze(asciiText(n.cluster)), CLUSTER_SUBJECT_CHARS, '...') || 'unnamed cluster';
  const head = squeeze(`[${cluster}] ${asciiText(headline(n))}`);
  const { names, total } = subjectNames(n);
  const subject = names.length > 0 ? withNames(head, names, total, SUBJECT_MAX_CHARS) : head;
  return truncate(subject, SUBJECT_MAX_CHARS, '...');
}

/** `FIRING: 2 nodes down`, `STORM: 14 of 20 nodes silent in eu-west-1a`, ... */
function headline(n: Notification): string {
  const watchdog = n.watchdog;
  if (watchdog?.state === 'failing') {
    return `${n.kind}: cannot read cluster (${watchdog.failure})`;
  }
  if (n.storm?.state === 'ended') {
    const parts = [countsPhrase(n, { firing: true }), 'storm over'].filter(Boolean);
    return `${n.kind === 'STORM' ? 'STORM OVER' : n.kind}: ${parts.join('; ')}`;
  }
  if (n.storm && n.kind === 'STORM') {
    const tail = countsPhrase(n, { firing: false });
    return `STORM: ${stormPhrase(n.storm)}${tail ? `; ${tail}` : ''}`;
  }
  const parts: string[] = [];
  const counts = countsPhrase(n, { firing: true });
  if (counts) parts.push(counts);
  if (watchdog?.state === 'resolved') parts.push('cluster readable again');
  const label =
    n.kind === 'WATCHDOG' && watchdog?.state === 'resolved' ? 'WATCHDOG RESOLVED' : n.kind;
  return `${label}: ${parts.join('; ') || 'no node changes'}`;
}

function stormPhrase(storm: StormInfo): string {
  if (storm.scope === 'cluster' || storm.zones.length === 0) {
    return `${fmt(storm.clusterAlerting)} of ${fmt(storm.clusterTotal)} nodes silent cluster-wide`;
  }
  const alerting = storm.zones.reduce((sum, z) => sum + z.alerting, 0);
  const total = storm.zones.reduce((sum, z) => sum + z.total, 0);
  const zones =
    storm.zones.length <= 2
      ? storm.zones.map((z) => zoneName(z.zone)).join(', ')
      : `${storm.zones.length} zones`;
  return `${fmt(alerting)} of ${fmt(total)} nodes silent in ${zones}`;
}

/**
 * The node counts: `2 nodes down` alone, `2 down, 1 recovered` when mixed. With
 * `firing: false` (storms) the firing count is left out, as the storm phrase already says it.
 */
function countsPhrase(n: Notification, opts: { firing: boolean }): string {
  const parts: Array<[number, string]> = [];
  if (opts.firing && n.firing.length > 0) parts.push([n.firing.length, 'down']);
  if (n.reminders.length > 0) parts.push([n.reminders.length, 'still down']);
  if (n.flapping.length > 0) parts.push([n.flapping.length, 'flapping']);
  if (n.resolved.length > 0) parts.push([n.resolved.length, resolvedWord(n.resolved)]);
  const [only] = parts;
  if (parts.length === 1 && only) return `${fmt(only[0])} ${plural(only[0], 'node')} ${only[1]}`;
  return parts.map(([count, word]) => `${fmt(count)} ${word}`).join(', ');
}

const REMOVALS: ReadonlySet<Resolution> = new Set([
  'cordoned',
  'deleting',
  'autoscaler-removal',
  'karpenter-disruption',
  'node-deleted',
]);

function resolvedWord(nodes: readonly AlertNode[]): string {
  if (nodes.every((x) => (x.resolution ?? 'recovered') === 'recovered')) return 'recovered';
  if (nodes.every((x) => x.resolution !== undefined && REMOVALS.has(x.resolution))) {
    return 'removed';
  }
  return 'resolved';
}

/** Short names for the subject, from the list the headline is about. */
function subjectNames(n: Notification): { names: string[]; total: number } {
  if (n.kind === 'STORM' || n.watchdog?.state === 'failing') return { names: [], total: 0 };
  const list =
    [n.firing, n.flapping, n.reminders, n.resolved].find((nodes) => nodes.length > 0) ?? [];
  // A subject holds at most a handful of names: never map a 100,000-node list.
  return { names: list.slice(0, 20).map((x) => shortName(x.name)), total: list.length };
}

/** `ip-10-0-1-5.eu-west-1.compute.internal` → `ip-10-0-1-5...`; at most 24 characters. */
function shortName(name: string): string {
  const clean = squeeze(asciiText(name)) || '?';
  const dot = clean.indexOf('.');
  const label = dot > 0 ? `${clean.slice(0, dot)}...` : clean;
  return truncate(label, 24, '...');
}

function withNames(head: string, names: readonly string[], total: number, max: number): string {
  const list = (shown: readonly string[]): string => {
    const rest = total - shown.length;
    return `${head} (${shown.join(', ')}${rest > 0 ? `, +${fmt(rest)} more` : ''})`;
  };
  const shown: string[] = [];
  for (const name of names) {
    if (list([...shown, name]).length > max) break;
    shown.push(name);
  }
  return shown.length > 0 ? list(shown) : head;
}

// ---------------------------------------------------------------------------------------------
// Body
// ---------------------------------------------------------------------------------------------

/** One item of a node list: its text (one or more lines) and how many nodes it shows. */
interface Entry {
  readonly text: string;
  readonly nodes: number;
  /** Followed by a blank line (detailed node blocks). */
  readonly spaced?: boolean;
}

interface Section {
  readonly heading: string;
  readonly intro: readonly string[];
  /** Lazy: a 100,000-node list is only rendered as far as it fits. */
  readonly entries: Iterable<Entry>;
  readonly total: number;
}

export function renderBody(n: Notification, opts: { maxBytes?: number } = {}): string {
  const maxBytes = opts.maxBytes ?? BODY_MAX_BYTES;
  const compact = n.kind === 'STORM' || n.storm !== undefined;

  const head: string[] = [
    `lease-watchdog: ${n.kind} for cluster ${bodyText(n.cluster, 200) || '(unnamed)'}`,
    '',
    ...labelled('Cluster', bodyText(n.cluster, 200) || '(unnamed)'),
    ...labelled('Checked', utc(n.at)),
    ...labelled('Summary', `${headline(n).replace(/^[A-Z ]+: /, '')}.`),
    '',
  ];
  if (n.watchdog) head.push(...watchdogLines(n), '');
  if (n.storm) head.push(...stormLines(n.storm), '');

  const sections: Section[] = [];
  if (n.firing.length > 0) {
    sections.push({
      heading: compact
        ? `NODES DOWN (${fmt(n.firing.length)})`
        : `FIRING: ${fmt(n.firing.length)} ${plural(n.firing.length, 'node')} down`,
      intro: [],
      entries: compact ? compactEntries(n.firing) : detailed(n.firing, n.at, true),
      total: n.firing.length,
    });
  }
  if (n.reminders.length > 0) {
    sections.push({
      heading: `REMINDER: ${fmt(n.reminders.length)} ${plural(n.reminders.length, 'node')} still down`,
      intro: wrap('These incidents are still open; this reminder repeats while they stay open.'),
      entries: compact ? compactEntries(n.reminders) : detailed(n.reminders, n.at, true),
      total: n.reminders.length,
    });
  }
  if (n.flapping.length > 0) {
    sections.push({
      heading: `FLAPPING: ${fmt(n.flapping.length)} ${plural(n.flapping.length, 'node')} going down and up`,
      intro: wrap(
        'These nodes failed and recovered several times in a short while. Further changes for ' +
          'them are held back until they have been stable for a while; a flapping node usually ' +
          'means an overloaded kubelet, a saturated network link or a clock problem.',
      ),
      entries: compact ? compactEntries(n.flapping) : detailed(n.flapping, n.at, true),
      total: n.flapping.length,
    });
  }
  if (n.resolved.length > 0) {
    sections.push({
      heading: `RESOLVED: ${fmt(n.resolved.length)} ${plural(n.resolved.length, 'node')} ${resolvedWord(n.resolved)}`,
      intro: [],
      entries: compact ? compactEntries(n.resolved) : detailed(n.resolved, n.at, false),
      total: n.resolved.length,
    });
  }

  const tail: string[] = [];
  const down = [...n.firing, ...n.reminders, ...n.flapping];
  const stormActive = n.storm !== undefined && n.storm.state !== 'ended';
  if (down.length > 0 || (stormActive && n.watchdog?.state !== 'resolved')) {
    tail.push(...nextInKubernetes(n, down), '');
  }
  tail.push(...lookFurther(down[0] ?? n.resolved[0]), '');
  tail.push(`-- lease-watchdog, notification ${bodyText(n.id, 200)}`);

  return fitBody(head, sections, tail, maxBytes);
}

/**
 * Joins head, node sections and tail within `maxBytes`: the head and tail always appear; node
 * entries are added while they fit, and each section that could not list everything ends with
 * "… and N more nodes".
 */
function fitBody(head: string[], sections: readonly Section[], tail: string[], maxBytes: number) {
  const out: string[] = [...head];
  const fixed = utf8Bytes(`${head.join('\n')}\n${tail.join('\n')}`) + 1;
  // Room kept for every section's heading, intro and "… and N more" line.
  const sectionCost = (s: Section): number =>
    utf8Bytes(`${s.heading}\n${'-'.repeat(s.heading.length)}\n${s.intro.join('\n')}\n`) + 80;
  let budget = maxBytes - fixed - sections.reduce((sum, s) => sum + sectionCost(s), 0);

  for (const s of sections) {
    out.push(s.heading, '-'.repeat(Math.min(s.heading.length, WIDTH)), ...s.intro);
    if (s.intro.length > 0) out.push('');
    let shown = 0;
    let spaced = false;
    for (const entry of s.entries) {
      const cost = utf8Bytes(entry.text) + (entry.spaced ? 2 : 1);
      if (cost > budget) break;
      budget -= cost;
      out.push(entry.text);
      if (entry.spaced) out.push('');
      spaced = entry.spaced === true;
      shown += entry.nodes;
    }
    const more = s.total - shown;
    if (more > 0) {
      out.push(`… and ${fmt(more)} more ${plural(more, 'node')} (not listed: message size limit)`);
      spaced = false;
    }
    if (!spaced) out.push('');
  }
  out.push(...tail);
  return capBytes(out.join('\n'), maxBytes);
}

/** Last resort when even the fixed parts exceed the limit: cut at a code point boundary. */
function capBytes(text: string, maxBytes: number): string {
  if (utf8Bytes(text) <= maxBytes) return text;
  const marker = '\n… (truncated: message size limit)';
  const room = Math.max(0, maxBytes - utf8Bytes(marker));
  const { read } = new TextEncoder().encodeInto(text, new Uint8Array(room));
  return text.slice(0, read) + marker;
}

function* detailed(nodes: readonly AlertNode[], at: number, open: boolean): Generator<Entry> {
  for (const x of nodes) yield nodeEntry(x, at, open);
}

function nodeEntry(x: AlertNode, at: number, open: boolean): Entry {
  const name = nodeName(x.name);
  const lines = [name];
  lines.push(...labelled('  zone', zoneName(x.zone)));
  lines.push(...labelled('  instance', x.instance ? bodyText(x.instance, 128) : '(unknown)'));
  lines.push(...labelled('  verdict', verdictText(x.verdict)));
  lines.push(...labelled('  last renewal', renewalText(x, at)));
  const skew = skewText(x, at);
  if (skew) lines.push(...labelled('  silent for', skew));
  lines.push(...labelled('  reason', bodyText(x.reason, 500) || '(none given)'));
  if (open && x.since !== undefined) {
    lines.push(...labelled('  down since', `${utc(x.since)} (${age(at - x.since)} ago)`));
  }
  if (!open) {
    lines.push(...labelled('  resolution', resolutionText(x.resolution ?? 'recovered')));
    if (x.since !== undefined) {
      lines.push(...labelled('  was down', `${age(at - x.since)} (since ${utc(x.since)})`));
    }
  }
  if (open) {
    lines.push(...labelled('  look further', `kubectl describe node ${shellWord(name)}`));
    lines.push(
      `${' '.repeat(LABEL_WIDTH)}kubectl get lease ${shellWord(name)} -n ${LEASE_NAMESPACE} -o yaml`,
    );
  }
  return { text: lines.join('\n'), nodes: 1, spaced: true };
}

/**
 * Names a few per line, grouped by zone: for storms, where hundreds of nodes go at once. A DNS
 * suffix shared by every name (`.eu-west-1.compute.internal`) is said once, not on every name.
 */
function compactEntries(nodes: readonly AlertNode[]): Entry[] {
  const names = nodes.map((x) => nodeName(x.name));
  const suffix = commonDnsSuffix(names);
  const byZone = new Map<string, string[]>();
  nodes.forEach((x, i) => {
    const zone = zoneName(x.zone);
    const list = byZone.get(zone) ?? [];
    list.push((names[i] ?? '').slice(0, suffix ? -suffix.length : undefined));
    byZone.set(zone, list);
  });
  const zones = [...byZone.keys()].sort((a, b) =>
    a === NO_ZONE ? 1 : b === NO_ZONE ? -1 : a.localeCompare(b),
  );
  const entries: Entry[] = [];
  if (suffix) entries.push({ text: `  (every name below ends in ${suffix})`, nodes: 0 });
  for (const zone of zones) {
    const list = byZone.get(zone) ?? [];
    entries.push({ text: `  ${zone} (${fmt(list.length)}):`, nodes: 0 });
    let line: string[] = [];
    let length = 0;
    for (const name of list) {
      if (line.length > 0 && length + 2 + name.length > WIDTH - 4) {
        entries.push({ text: `    ${line.join(', ')}`, nodes: line.length });
        line = [];
        length = 0;
      }
      length += (line.length > 0 ? 2 : 0) + name.length;
      line.push(name);
    }
    if (line.length > 0) entries.push({ text: `    ${line.join(', ')}`, nodes: line.length });
  }
  return entries;
}

/** The longest `.`-led suffix that every name has (and that leaves something of each), or ''. */
function commonDnsSuffix(names: readonly string[]): string {
  const first = names[0] ?? '';
  let suffix = first.includes('.', 1) ? first.slice(first.indexOf('.', 1)) : '';
  for (const name of names) {
    while (suffix && !(name.endsWith(suffix) && name.length > suffix.length)) {
      const next = suffix.indexOf('.', 1);
      suffix = next > 0 ? suffix.slice(next) : '';
    }
    if (!suffix) break;
  }
  return suffix;
}

function stormLines(storm: StormInfo): string[] {
  if (storm.state === 'ended') {
    const title = 'STORM OVER';
    return [
      title,
      '-'.repeat(title.length),
      ...wrap(
        `The ${storm.scope === 'cluster' ? 'cluster-wide' : 'zone'} disruption reported earlier is over: ` +
          `${fmt(storm.clusterAlerting)} of ${fmt(storm.clusterTotal)} nodes are alerting now, below the storm threshold. ` +
          'Nodes still down stay open as incidents and are listed on their own.',
      ),
    ];
  }
  const title = `STORM: ${stormPhrase(storm)}`;
  const lines = [title, '-'.repeat(Math.min(title.length, WIDTH))];
  lines.push(
    ...wrap(
      storm.scope === 'cluster'
        ? 'Most of the cluster went silent in the same check. When that many nodes stop ' +
            'heart-beating together, the likely cause is the network or the control plane, not ' +
            'the nodes.'
        : 'Most nodes of a zone went silent in the same check. When that many nodes stop ' +
            'heart-beating together, the likely cause is the network or the control plane, not ' +
            'the nodes.',
    ),
    '',
  );
  const rows = storm.zones.map((z) => [zoneName(z.zone), z.alerting, z.total] as const);
  const zoneWidth = Math.max(8, ...rows.map(([zone]) => zone.length));
  lines.push(`  ${'zone'.padEnd(zoneWidth)}  ${'silent'.padStart(8)}  ${'total'.padStart(8)}`);
  for (const [zone, alerting, total] of rows) {
    const pct = total > 0 ? ` (${Math.round((alerting / total) * 100)} %)` : '';
    lines.push(
      `  ${zone.padEnd(zoneWidth)}  ${fmt(alerting).padStart(8)}  ${fmt(total).padStart(8)}${pct}`,
    );
  }
  lines.push(
    `  ${'cluster'.padEnd(zoneWidth)}  ${fmt(storm.clusterAlerting).padStart(8)}  ${fmt(storm.clusterTotal).padStart(8)}`,
    '',
    'What to check',
    ...bullets([
      "The zone's network: subnets, route tables, NAT gateways, Transit Gateway or VPN links, " +
        'security groups between the nodes and the API server endpoint.',
      "The control plane: API server and etcd health (kubectl get --raw '/readyz?verbose'), and " +
        'the AWS Health Dashboard for the region and zone.',
      'One node of the zone: can it still reach the API server? (kubectl describe node, then ' +
        'the kubelet log on the instance: journalctl -u kubelet)',
    ]),
  );
  return lines;
}

const FAILURE_HINTS: Readonly<Record<ClusterReadFailure | 'unknown', string>> = {
  config:
    'The cluster settings cannot be used: check the kubeconfig or the server URL, CA data and ' +
    'token given to the watchdog.',
  'exec-plugin':
    'The kubeconfig needs an exec credential plugin (such as aws-iam-authenticator or the aws ' +
    'CLI), which does not exist here: use the eks authentication mode instead.',
  unreachable:
    'The API server could not be reached: DNS, routing, security groups, or the EKS endpoint ' +
    'access setting (public/private) between the watchdog and the cluster.',
  tls: 'TLS verification failed: the CA data given to the watchdog does not match the API server certificate.',
  unauthorized:
    'The API server rejected the credentials (401): an expired or revoked token, or an IAM role ' +
    'that is not mapped into the cluster (EKS access entry or aws-auth).',
  forbidden:
    'RBAC denies the watchdog a verb it needs (403): apply deploy/rbac.yaml, which grants get and ' +
    'list on leases in kube-node-lease and on nodes.',
  'not-found':
    'The API answered 404: the lease namespace may not exist (the watchdog reads kube-node-lease ' +
    'unless configured otherwise).',
  server:
    'The API server answered with an error (5xx) or an unreadable answer: check its health and ' +
    'the control plane logs.',
  timeout:
    'The API server did not answer in time: a slow or overloaded control plane, or packets ' +
    'dropped on the network path.',
  aborted:
    'The read was cut off by the watchdog deadline (the Lambda timeout): the API server was too ' +
    'slow to answer.',
  unknown: 'The read failed for a reason the watchdog did not recognise; see the message above.',
};

function watchdogLines(n: Notification): string[] {
  const w = n.watchdog;
  if (!w) return [];
  const failed = `${w.failure}: ${bodyText(w.message, 1000) || '(no message)'}`;
  if (w.state === 'resolved') {
    const title = 'WATCHDOG RESOLVED: the watchdog can read this cluster again';
    return [
      title,
      '-'.repeat(Math.min(title.length, WIDTH)),
      ...labelled('It had failed', failed),
      ...labelled('From', `${utc(w.since)} to ${utc(n.at)} (${age(n.at - w.since)})`),
      '',
      ...wrap(
        'Node failures during that time could not be seen; the nodes listed below (if any) are ' +
          'what the watchdog finds now.',
      ),
    ];
  }
  const title = 'WATCHDOG: the watchdog cannot read this cluster';
  return [
    title,
    '-'.repeat(title.length),
    ...labelled('What failed', failed),
    ...labelled('Since', `${utc(w.since)} (${age(n.at - w.since)} ago)`),
    '',
    ...wrap(
      'Until reads work again, node failures in this cluster go unnoticed. A cluster the ' +
        'watchdog cannot read is not a healthy cluster.',
    ),
    '',
    'What to check',
    ...bullets([
      FAILURE_HINTS[w.failure],
      'Network path: from the watchdog (its VPC, subnets, security groups, NAT) to the API ' +
        'server endpoint.',
      'Credentials: the secret or IAM role the watchdog uses is still valid and still mapped ' +
        'into the cluster.',
      'RBAC: deploy/rbac.yaml is applied (kubectl auth can-i list leases -n kube-node-lease ' +
        '--as <the watchdog identity>).',
    ]),
  ];
}

function nextInKubernetes(n: Notification, down: readonly AlertNode[]): string[] {
  const points: string[] = [];
  const verdicts = new Set(down.map((x) => x.verdict));
  const stormActive = n.storm !== undefined && n.storm.state !== 'ended';
  if (verdicts.has('expired') || verdicts.has('missing-lease') || stormActive) {
    points.push(
      'The node lifecycle controller marks a node whose lease stops renewing NotReady/Unknown ' +
        'after node-monitor-grace-period (50 s since Kubernetes 1.32, 40 s before) and taints ' +
        'it node.kubernetes.io/unreachable:NoExecute.',
    );
  }
  if (verdicts.has('not-ready')) {
    points.push(
      'A node that reports Ready=False keeps renewing its lease; it is tainted ' +
        'node.kubernetes.io/not-ready:NoExecute.',
    );
  }
  points.push(
    'Pods are evicted once their toleration of that taint runs out (tolerationSeconds, 300 s by ' +
      'default) and their controllers recreate them on other nodes. StatefulSet pods and ' +
      'volumes attached to the node wait until the node is confirmed gone or deleted.',
  );
  if (stormActive) {
    points.push(
      'In a zone where at least 55 % of nodes are unhealthy the controller slows evictions ' +
        '(0.01 nodes/s, none in clusters of 50 nodes or fewer), and it stops them altogether ' +
        'when every zone is fully disrupted: pods may stay bound to the silent nodes.',
    );
  }
  points.push(
    'Nothing replaces the machine unless something does it on purpose: the cluster autoscaler, ' +
      'Karpenter, EKS node auto-repair or a machine health check.',
  );
  return ['What happens next in Kubernetes', ...bullets(points)];
}

function lookFurther(example: AlertNode | undefined): string[] {
  if (!example) {
    return [
      'Look further',
      "  kubectl get --raw '/readyz?verbose'",
      `  kubectl get leases -n ${LEASE_NAMESPACE}`,
      '  kubectl get nodes -o wide',
    ];
  }
  const name = shellWord(nodeName(example.name));
  return [
    'Look further',
    '  kubectl get nodes -o wide',
    `  kubectl describe node ${name}`,
    `  kubectl get lease ${name} -n ${LEASE_NAMESPACE} -o yaml`,
    `  kubectl get events -A --field-selector involvedObject.name=${name}`,
  ];
}

// ---------------------------------------------------------------------------------------------
// Small formatting pieces
// ---------------------------------------------------------------------------------------------

const NO_ZONE = '(no zone)';

function zoneName(zone: string | null): string {
  return (zone && bodyText(zone, 63)) || NO_ZONE;
}

function nodeName(name: string): string {
  return bodyText(name, 253) || '(unnamed)';
}

const PLAIN = /^[\x21-\x7e]+(?: [\x21-\x7e]+)*$/;

/** Untrusted text on one line of the body: cleaned, squeezed, shortened. */
function bodyText(text: string, max: number): string {
  // Fast path for the common case (DNS names, ids): nothing to clean.
  if (text.length <= max && PLAIN.test(text)) return text;
  return truncate(squeeze(cleanText(text)), max);
}

const VERDICT_TEXT: Readonly<Record<Verdict, string>> = {
  healthy: 'healthy',
  expired: 'expired (lease not renewed within the grace period)',
  'not-ready': 'not-ready (lease renewing, but the node reports Ready=False)',
  'missing-lease': 'missing-lease (the node has no lease)',
  'orphaned-lease': 'orphaned-lease (lease without a node)',
  suppressed: 'suppressed',
  invalid: 'invalid (lease spec cannot be read)',
};

function verdictText(verdict: Verdict): string {
  return VERDICT_TEXT[verdict] ?? bodyText(String(verdict), 40);
}

const RESOLUTION_TEXT: Readonly<Record<Resolution, string>> = {
  recovered: 'recovered: the lease is renewing again',
  cordoned: 'cordoned (spec.unschedulable): taken out of service on purpose',
  deleting: 'being deleted (deletionTimestamp set)',
  'autoscaler-removal': 'being removed by the cluster autoscaler (ToBeDeletedByClusterAutoscaler)',
  'karpenter-disruption': 'being disrupted by Karpenter',
  excluded: "now excluded by the watchdog's node selector",
  'node-deleted': 'the Node was deleted (a lease left behind is orphaned, not a failure)',
};

function resolutionText(resolution: Resolution): string {
  return RESOLUTION_TEXT[resolution] ?? bodyText(String(resolution), 60);
}

/** Parses a MicroTime / RFC 3339 string; null when it is not one. */
function parseTime(text: string | null): number | null {
  if (text === null) return null;
  const ms = Date.parse(text);
  return Number.isFinite(ms) ? ms : null;
}

function renewalText(x: AlertNode, at: number): string {
  if (x.renewTime === null) return 'never';
  const ms = parseTime(x.renewTime);
  if (ms === null) return `${bodyText(x.renewTime, 64)} (unreadable)`;
  const delta = at - ms;
  return delta >= 0
    ? `${utc(ms)} (${age(delta)} ago)`
    : `${utc(ms)} (${age(-delta)} in the future: the node's clock is ahead)`;
}

/**
 * renewTime is written with the kubelet's clock; silentForSeconds is measured on the watchdog's.
 * When they disagree by more than 30 s, say so: the node's clock is off.
 */
function skewText(x: AlertNode, at: number): string | null {
  const ms = parseTime(x.renewTime);
  if (ms === null || x.silentForSeconds === null) return null;
  const off = (at - ms) / 1000 - x.silentForSeconds;
  if (Math.abs(off) <= 30) return null;
  return `${age(x.silentForSeconds * 1000)} by the watchdog's clock (the node's clock seems off by ${age(Math.abs(off) * 1000)})`;
}

/** `2026-11-29 17:52:14 UTC`. */
export function utc(ms: number): string {
  if (!Number.isFinite(ms)) return '(unknown time)';
  const date = new Date(ms);
  if (Number.isNaN(date.getTime())) return '(unknown time)';
  return `${date.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

/** `45s`, `3m 20s`, `1m`, `2h 5m`, `3d 4h` (like kubectl ages, spaced for reading). */
export function age(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (!Number.isFinite(s)) return '?';
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return s % 60 === 0 ? `${m}m` : `${m}m ${s % 60}s`;
  const h = Math.floor(m / 60);
  if (h < 24) return m % 60 === 0 ? `${h}h` : `${h}h ${m % 60}m`;
  const d = Math.floor(h / 24);
  return h % 24 === 0 ? `${d}d` : `${d}d ${h % 24}h`;
}

const numbers = new Intl.NumberFormat('en-US');

function fmt(value: number): string {
  return numbers.format(value);
}

function plural(count: number, word: string): string {
  return count === 1 ? word : `${word}s`;
}

/** `Label:` padded to a fixed column, then the value. */
function labelled(label: string, value: string): string[] {
  const prefix = `${label}:`.padEnd(LABEL_WIDTH);
  return [`${prefix}${value}`];
}

function bullets(points: readonly string[]): string[] {
  return points.flatMap((p) => wrap(p, WIDTH, '  - ', '    '));
}

/** Wraps prose at word boundaries to `width` columns. */
function wrap(text: string, width = WIDTH, first = '', rest = first): string[] {
  const lines: string[] = [];
  let line = first;
  let empty = true;
  for (const word of text.split(' ')) {
    if (!empty && line.length + 1 + word.length > width) {
      lines.push(line);
      line = rest + word;
    } else {
      line += (empty ? '' : ' ') + word;
    }
    empty = false;
  }
  lines.push(line);
  return lines;
}
