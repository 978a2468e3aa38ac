/**
 * The prose of a NOTICE email: the watchdog's word about itself that is not a read failure —
 * checks that run degraded (the Nodes cannot be read) and their end, and a reset of unreadable
 * state. Says what is missing and how to fix it.
 */
import type { DiscoveryChange, NoticeInfo } from '../../../core/notification.js';
import { block, bodyText, bullets, moment, period } from './format.js';
import { shellWord } from './text.js';

/**
 * `namespace`: where the cluster's leases are; `at`: the time of the check; `kubectl`: kubectl
 * with the cluster's context (advice.ts, kubectlFor).
 */
export function noticeLines(
  notice: NoticeInfo,
  at: number,
  namespace: string,
  kubectl: string,
): string[] {
  if (notice.topic === 'state-reset' || notice.topic === 'silences-set-aside') {
    return block({
      ...COPY_KEPT[notice.topic],
      facts: {
        'What failed': said(notice.message),
        'Copy kept at': said(notice.copy, '(unknown)'),
      },
    });
  }
  if (notice.topic === 'discovery') return discoveryLines(notice);
  if (notice.topic === 'checks-overdue') return checksOverdueLines(notice);
  const what = said(notice.message);
  if (notice.state === 'ended') {
    return block({
      title: 'NOTICE: checks of this cluster are complete again',
      facts: { 'It had failed': what, From: period(notice.since, at) },
      prose:
        'The Nodes can be read again: not-ready nodes, expected removals and missing leases are ' +
        'judged again from this check on.',
    });
  }
  return [
    ...block({
      title: 'NOTICE: checks of this cluster run degraded: the Nodes cannot be read',
      facts: { 'What failed': what, Since: moment(notice.since, at) },
      prose:
        'The leases are still read, so a node whose lease goes silent is still detected and paged. ' +
        'Without the Nodes the watchdog cannot judge:',
    }),
    ...bullets([
      'not-ready: a node that reports Ready=False while its kubelet still renews its lease goes ' +
        'unnoticed;',
      'expected removals: a cordoned node, a node being deleted or tainted for removal ' +
        '(cluster autoscaler, Karpenter) is not recognised, so its silence pages like a failure;',
      'missing-lease: a Node that has no Lease at all goes unnoticed;',
      'zones, node groups and instances are unknown (storms are judged cluster-wide only), and ' +
        'a deleted node is not recognised as gone (its incident stays open).',
    ]),
    '',
    'How to fix it',
    ...bullets([
      `Grant get and list on nodes to the watchdog: ${kubectl} apply -f deploy/rbac.yaml (its ` +
        `ClusterRole lease-watchdog), then check: ${kubectl} auth can-i list nodes --as <the ` +
        `watchdog identity> (and ${kubectl} auth can-i list leases -n ${shellWord(namespace)}).`,
      'One NOTICE says when checks are complete again; until then the log line of each check ' +
        '(cluster checked) says degraded.',
    ]),
  ];
}

/** Untrusted text the watchdog was told, on one line, or what stands for it when empty. */
function said(text: string, none = '(no message)'): string {
  return bodyText(text, 1000) || none;
}

/** The notices of unreadable stored data, kept aside as a copy: what it means, what to check. */
const COPY_KEPT = {
  'state-reset': {
    title: 'NOTICE: the stored state could not be read; the watchdog started afresh',
    prose:
      'The unreadable state was kept aside and the watchdog starts from an empty state. What it ' +
      'remembered is gone: open incidents, reminders, flapping and storm records, and ' +
      'notifications not yet sent. Nodes that are still down are paged again once their ' +
      'silence is confirmed (open alerts may be announced again), and nodes that recovered ' +
      'meanwhile get no RESOLVED.',
    checks: [
      'The copy, to see what went wrong (docs/STATE.md describes the layout). A copy in the ' +
        'state table expires like every state item (30 days by default); a file copy stays ' +
        'until you delete it.',
      'Who else writes the state table or file: only the watchdog should.',
    ],
  },
  'silences-set-aside': {
    title: 'NOTICE: stored silences could not be honoured; they were set aside',
    prose:
      'A silence the watchdog cannot honour (an end past what a date can hold or more than a ' +
      "month past the watchdog's clock, a creation in its future, unprintable text, or no " +
      'silence at all) was moved aside rather than trusted. The nodes it named are judged as ' +
      'usual, and paged if they are down; every other silence still holds.',
    checks: [
      'The copy, to see who wrote it and with which clock (a laptop whose clock runs fast ' +
        'stamps silences that end long after the time asked for). A copy in the state table ' +
        'expires after 7 days; a file copy stays until you delete it.',
      'Add it again with lease-watchdog silence add, from a machine with a right clock, if it ' +
        'is still wanted; only lease-watchdog should write the state table or silences file.',
    ],
  },
} as const;

/** Each discovery change: its headline (subject and summary), its title, what it means. */
export const DISCOVERY_NOTICES = {
  appeared: [
    'NOTICE: discovered, watched from now on',
    'NOTICE: a cluster was discovered; it is watched from now on',
    'Discovery found this EKS cluster, ACTIVE and matching the tag filter. It is checked like a ' +
      'listed eks cluster from the next scheduled run on; when it cannot be read, a WATCHDOG ' +
      'says why.',
  ],
  deleted: [
    'NOTICE: deleted, no longer watched',
    'NOTICE: a discovered cluster was deleted; it is no longer watched',
    'The cluster is gone (or being deleted): its checks stopped, and nothing pages for it. ' +
      'This is said once.',
  ],
  dropped: [
    'NOTICE: no longer matches discovery, no longer watched',
    'NOTICE: a discovered cluster no longer matches; it is no longer watched',
    'The cluster still exists but no longer carries the tags discovery looks for (or it ' +
      'failed): its checks stopped. Tag it again to have it watched.',
  ],
  'tag-invalid': [
    'NOTICE: a tag was ignored',
    'NOTICE: a tag of a discovered cluster was ignored',
    'The cluster is watched, without the setting of this tag: its default holds until the ' +
      'tag is fixed.',
  ],
  'same-name': [
    'NOTICE: another discovered cluster has this name, not watched',
    'NOTICE: two discovered clusters have one name; only the first named is watched',
    'Discovery found more than one EKS cluster to watch under this name (in two regions or ' +
      'two accounts, or by a lease-watchdog/name tag). The first named is watched (the one ' +
      'watched before, whatever is found first); the other is not checked, and nothing pages ' +
      'for it, until it has a name of its own. This is said once.',
  ],
  'settings-changed': [
    'NOTICE: its tags changed what is watched',
    'NOTICE: the tags of a discovered cluster changed what is watched',
    'Its lease-watchdog/ tags now set what is above: the checks follow them from the next ' +
      'run on. If this was not meant, tag the cluster back. This is said once.',
  ],
} as const satisfies Record<DiscoveryChange, readonly [string, string, string]>;

function discoveryLines(notice: Extract<NoticeInfo, { topic: 'discovery' }>): string[] {
  const [, title, prose] = DISCOVERY_NOTICES[notice.change];
  const lines = block({ title, facts: { What: said(notice.message) }, prose });
  if (notice.advice) lines.push('', 'What to run', `  ${bodyText(notice.advice, 1000)}`);
  return lines;
}

function checksOverdueLines(notice: Extract<NoticeInfo, { topic: 'checks-overdue' }>): string[] {
  const clusters = notice.clusters.map((name) => bodyText(name, 100)).join(', ');
  if (notice.state === 'ended') {
    return block({
      title: 'NOTICE: these clusters are checked successfully again',
      facts: { Clusters: clusters, 'Still overdue': String(notice.overdue) },
      prose: 'Their dispatched checks succeed again: their dead nodes are paged as usual.',
    });
  }
  return block({
    title: 'NOTICE: the watchdog has stopped checking these clusters successfully',
    facts: {
      Clusters: clusters,
      'Overdue in all': String(notice.overdue),
      What: said(notice.message),
    },
    prose:
      "The fleet's dispatcher sends each cluster's check every schedule period and records each " +
      "successful one; these have had none for longer than the dead-man's switch allows. Their " +
      'dead nodes may go unpaged until their checks succeed again.',
    checks: [
      'WATCHDOG notifications of these clusters: a cluster that cannot be read says why there.',
      'The function\'s log group: the "cluster checked" and "check failed" lines of these ' +
        'clusters, and errors of the dispatch queue (its dead-letter queue keeps the checks the ' +
        'function failed on).',
      'One NOTICE says when they are checked successfully again; the ClustersOverdue alarm ' +
        'stays in ALARM until then.',
    ],
  });
}
