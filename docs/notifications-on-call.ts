/**
 * The on-call sections of docs/NOTIFICATIONS.md (docs/notifications.ts renders the file): the
 * incident key that ties the notifications of one incident together.
 */

/** Incident keys: what they are made of, where they appear, what stays the same. */
export function incidentKeySection(): string[] {
  return [
    '## Incident keys: one incident, one key',
    '',
    'Every incident has a key, and every notification of it carries that key: the FIRING, each',
    'REMINDER, a FLAPPING notice and the RESOLVED of a node; the failing and resolved WATCHDOG of a',
    'cluster the watchdog cannot read; the start, spread and end of a STORM. An on-call tool pairs',
    'them with it (PagerDuty `dedup_key`, Opsgenie `alias`, a ticket id) and resolves on its own.',
    '',
    '| incident | key made from | form |',
    '| --- | --- | --- |',
    '| a node | cluster, node name, when its incident opened | `lw-node-` and 24 hex digits |',
    '| the watchdog cannot read the cluster | cluster, when reads started failing | `lw-watchdog-` and 24 hex digits |',
    '| a storm | cluster, when the storm started | `lw-storm-` and 24 hex digits |',
    '',
    'The hex digits are the first 96 bits of a SHA-256 over those parts (`lambda/core/incident-keys.ts`):',
    'at most 36 ASCII characters, safe in a URL, a header and a file name, deterministic (every',
    'container, every retry, and state written before keys existed give the same key), and',
    'without the cluster or node name in clear. When the node fails again after its RESOLVED, that',
    'is a new incident with a new key. A node that flaps keeps one key for the episode: the key of',
    'the incident open (or just resolved) when it started flapping, to the FIRING or RESOLVED that',
    'releases it.',
    '',
    'Where it is:',
    '',
    '- the document (and the EventBridge detail, which is the document): `nodes[].incidentKey`,',
    '  `watchdog.incidentKey`, `storm.incidentKey`;',
    '- the email: one line per node at the foot, `incident lw-node-…  <node>` (twenty at most,',
    '  then a count);',
    '- the chat notification: `metadata.additionalContext.incidentKeys`, space-separated (the',
    "  watchdog's or storm's first, then the first ten nodes').",
    '',
    'The notification `id` is something else: the id of one message (its deduplication id), new',
    'for every check that says something.',
    '',
  ];
}
