import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { EMPTY_ALERT_STATE } from '../lambda/core/alert-state.js';
import { incidentKey } from '../lambda/core/incident-keys.js';
import { alertsForEvaluation } from '../lambda/core/incidents.js';
import type { NodeGroupSummary, NodeVerdict, Verdict, ZoneSummary } from '../lambda/core/model.js';
import { detectStorm, type StormPolicy } from '../lambda/core/storms.js';
import { DEFAULT_ALERT_POLICY } from '../lambda/settings/index.js';
import {
  evaluation,
  expected,
  HOUR,
  MINUTE,
  nv,
  runScenarios,
  type Scenario,
  T0,
} from '../testkit/alert-builders.js';

/** `count` nodes of one zone, named `${zone}-${prefix}NN`, with one verdict. */
function zoneNodes(zone: string, prefix: string, count: number, verdict: Verdict): NodeVerdict[] {
  return Array.from({ length: count }, (_, i) =>
    nv(`${zone || 'nozone'}-${prefix}${String(i).padStart(2, '0')}`, verdict, {
      zone: zone === '' ? null : zone,
    }),
  );
}

/** A zone of `total` nodes of which the first `alerting` are expired. */
function zone(name: string, total: number, alerting: number): NodeVerdict[] {
  return [
    ...zoneNodes(name, 'n', alerting, 'expired'),
    ...zoneNodes(name, 'ok', total - alerting, 'healthy'),
  ];
}

function names(list: readonly NodeVerdict[]): string[] {
  return list.filter((n) => n.verdict === 'expired').map((n) => n.name);
}

/** Same zone, but the n-th node of `from` replaced by `verdict`. */
function withVerdict(list: readonly NodeVerdict[], from: number, verdict: Verdict): NodeVerdict[] {
  return list.map((n, i) => (i >= from && n.verdict === 'expired' ? { ...n, verdict } : n));
}

const calm = zone('b', 20, 0);
const a11 = zone('a', 20, 11);
/** Zone b, 10 of 20 down (b-n10 recovered). */
const b10 = withVerdict(zone('b', 20, 11), 10, 'healthy');

describe('detectStorm', () => {
  const cases: {
    name: string;
    zones: ZoneSummary[];
    nodeGroups?: NodeGroupSummary[];
    policy?: Partial<StormPolicy>;
    expect: string | null;
  }[] = [
    {
      name: 'a node group of 3, all silent, spread over zones that do not cross',
      zones: [
        { zone: 'a', total: 4, silent: 1 },
        { zone: 'b', total: 4, silent: 1 },
        { zone: 'c', total: 4, silent: 1 },
      ],
      nodeGroups: [
        { nodeGroup: 'general', total: 9, silent: 0 },
        { nodeGroup: 'gpu', total: 3, silent: 3 },
      ],
      expect: 'node-group  groups gpu 3/12',
    },
    {
      name: 'a node group just under 55 %',
      zones: [{ zone: 'a', total: 40, silent: 10 }],
      nodeGroups: [
        { nodeGroup: 'batch', total: 20, silent: 10 },
        { nodeGroup: 'web', total: 20, silent: 0 },
      ],
      expect: null,
    },
    {
      name: 'a node group of 2, both silent: below the minimum of 3',
      zones: [{ zone: 'a', total: 20, silent: 2 }],
      nodeGroups: [{ nodeGroup: 'gpu', total: 2, silent: 2 }],
      expect: null,
    },
    {
      name: 'a zone and a node group both cross: scope zone, both named',
      zones: [
        { zone: 'a', total: 5, silent: 3 },
        { zone: 'b', total: 5, silent: 0 },
      ],
      nodeGroups: [{ nodeGroup: 'spot', total: 4, silent: 3 }],
      expect: 'zone a groups spot 3/10',
    },
    {
      name: 'exactly 55 % of a zone, 3+ alerting',
      zones: [
        { zone: 'a', total: 20, silent: 11 },
        { zone: 'b', total: 20, silent: 0 },
      ],
      expect: 'zone a 11/40',
    },
    {
      name: 'just under 55 %',
      zones: [
        { zone: 'a', total: 20, silent: 10 },
        { zone: 'b', total: 20, silent: 0 },
      ],
      expect: null,
    },
    {
      name: '55 % of 100 (0.55 * 100 is not exact)',
      zones: [
        { zone: 'a', total: 100, silent: 55 },
        { zone: 'b', total: 100, silent: 0 },
      ],
      expect: 'zone a 55/200',
    },
    {
      name: '2 of 2: below the minimum of 3 alerting nodes',
      zones: [
        { zone: 'a', total: 2, silent: 2 },
        { zone: 'b', total: 20, silent: 0 },
      ],
      expect: null,
    },
    {
      name: '3 of 3',
      zones: [
        { zone: 'a', total: 3, silent: 3 },
        { zone: 'b', total: 20, silent: 0 },
      ],
      expect: 'zone a 3/23',
    },
    {
      name: 'two zones, sorted',
      zones: [
        { zone: 'c', total: 5, silent: 5 },
        { zone: 'b', total: 20, silent: 0 },
        { zone: 'a', total: 5, silent: 4 },
      ],
      expect: 'zone a,c 9/30',
    },
    {
      name: 'the whole cluster, no zone crossing (too few per zone)',
      zones: [
        { zone: 'a', total: 2, silent: 2 },
        { zone: 'b', total: 2, silent: 2 },
        { zone: 'c', total: 2, silent: 1 },
        { zone: 'd', total: 2, silent: 0 },
      ],
      expect: 'cluster  5/8',
    },
    {
      name: 'cluster minimum: 2 of 2 nodes',
      zones: [
        { zone: 'a', total: 1, silent: 1 },
        { zone: 'b', total: 1, silent: 1 },
      ],
      expect: null,
    },
    {
      name: 'no zones at all',
      zones: [],
      expect: null,
    },
    {
      name: 'a zone fraction above 1 turns zone storms off',
      zones: [
        { zone: 'a', total: 3, silent: 3 },
        { zone: 'b', total: 20, silent: 0 },
      ],
      policy: { zoneFraction: 1.01 },
      expect: null,
    },
    {
      name: 'configured thresholds: 20 % and 2 nodes',
      zones: [
        { zone: 'a', total: 10, silent: 2 },
        { zone: 'b', total: 10, silent: 0 },
      ],
      policy: { zoneFraction: 0.2, zoneMinNodes: 2 },
      expect: 'zone a 2/20',
    },
  ];
  for (const c of cases) {
    test(c.name, () => {
      // Prepare
      const policy = { ...DEFAULT_ALERT_POLICY.storm, ...c.policy };
      // Act
      const detection = detectStorm(c.zones, policy, c.nodeGroups);
      // Assess
      const groups = detection?.crossedNodeGroups.map((g) => g.nodeGroup).join(',');
      const got =
        detection === null
          ? null
          : `${detection.scope} ${detection.crossed.map((z) => z.zone).join(',')}${groups ? ` groups ${groups}` : ''} ${detection.clusterSilent}/${detection.clusterTotal}`;
      assert.equal(got, c.expect);
    });
  }
});

const scenarios: Scenario[] = [
  {
    name: 'exactly 55 % of a zone → one STORM with the storm nodes',
    checks: [
      {
        at: T0,
        nodes: [...a11, ...calm],
        expect: expected({
          kind: 'STORM',
          severity: 'critical',
          firing: names(a11),
          storm: 'active zone a=11/20',
        }),
      },
    ],
  },
  {
    name: '50 % of a zone → per-node FIRING',
    checks: [
      {
        at: T0,
        nodes: [...zone('a', 20, 10), ...calm],
        expect: expected({
          kind: 'FIRING',
          severity: 'critical',
          firing: names(zone('a', 20, 10)),
        }),
      },
    ],
  },
  {
    name: 'a zone of 2 nodes, both down → FIRING (below the minimum)',
    checks: [
      {
        at: T0,
        nodes: [...zone('a', 2, 2), ...calm],
        expect: expected({ kind: 'FIRING', severity: 'critical', firing: names(zone('a', 2, 2)) }),
      },
    ],
  },
  {
    name: 'a zone of 3 nodes, all down → STORM',
    checks: [
      {
        at: T0,
        nodes: [...zone('a', 3, 3), ...calm],
        expect: expected({
          kind: 'STORM',
          severity: 'critical',
          firing: names(zone('a', 3, 3)),
          storm: 'active zone a=3/3',
        }),
      },
    ],
  },
  {
    name: 'nodes without a zone storm as zone ""',
    checks: [
      {
        at: T0,
        nodes: [...zone('', 5, 3), ...calm],
        expect: expected({
          kind: 'STORM',
          severity: 'critical',
          firing: names(zone('', 5, 3)),
          storm: 'active zone =3/5',
        }),
      },
    ],
  },
  {
    name: 'cluster-wide storm → STORM naming every zone',
    checks: [
      {
        at: T0,
        nodes: [...zone('a', 2, 2), ...zone('b', 2, 2), ...zone('c', 2, 1), ...zone('d', 2, 0)],
        expect: expected({
          kind: 'STORM',
          severity: 'critical',
          firing: [...names(zone('a', 2, 2)), ...names(zone('b', 2, 2)), ...names(zone('c', 2, 1))],
          storm: 'active cluster a=2/2,b=2/2,c=1/2,d=0/2',
        }),
      },
    ],
  },
  {
    name: 'storm continuing → null; more nodes joining it → null; a node elsewhere → FIRING',
    checks: [
      {
        at: T0,
        nodes: [...a11, ...calm],
        expect: expected({
          kind: 'STORM',
          severity: 'critical',
          firing: names(a11),
          storm: 'active zone a=11/20',
        }),
      },
      { at: T0 + MINUTE, nodes: [...a11, ...calm], expect: null },
      { at: T0 + 2 * MINUTE, nodes: [...zone('a', 20, 15), ...calm], expect: null },
      {
        at: T0 + 3 * MINUTE,
        nodes: [...zone('a', 20, 15), ...zone('b', 20, 1)],
        expect: expected({ kind: 'FIRING', severity: 'critical', firing: ['b-n00'] }),
      },
    ],
  },
  {
    name: 'storm nodes recovering → RESOLVED, grouped; the end of the storm rides along',
    checks: [
      {
        at: T0,
        nodes: [...a11, ...calm],
        expect: expected({
          kind: 'STORM',
          severity: 'critical',
          firing: names(a11),
          storm: 'active zone a=11/20',
        }),
      },
      {
        at: T0 + 2 * MINUTE,
        nodes: [...withVerdict(a11, 10, 'healthy'), ...calm],
        expect: expected({
          kind: 'RESOLVED',
          severity: 'info',
          resolved: ['a-n10:recovered'],
          storm: 'ended zone a=10/20',
        }),
      },
      {
        at: T0 + 3 * MINUTE,
        nodes: [...withVerdict(a11, 0, 'healthy'), ...calm],
        expect: expected({
          kind: 'RESOLVED',
          severity: 'info',
          resolved: names(zone('a', 20, 10)).map((n) => `${n}:recovered`),
        }),
      },
    ],
  },
  {
    name: 'a storm that ends with no node change → STORM ended, info',
    checks: [
      {
        at: T0,
        nodes: [...a11, ...calm],
        expect: expected({
          kind: 'STORM',
          severity: 'critical',
          firing: names(a11),
          storm: 'active zone a=11/20',
        }),
      },
      {
        at: T0 + MINUTE,
        nodes: [...a11, ...zoneNodes('a', 'new', 1, 'healthy'), ...calm],
        expect: expected({ kind: 'STORM', severity: 'info', storm: 'ended zone a=11/21' }),
      },
      {
        at: T0 + 2 * MINUTE,
        nodes: [...a11, ...zoneNodes('a', 'new', 1, 'healthy'), ...calm],
        expect: null,
      },
    ],
  },
  {
    name: 'nodes already firing before the storm are named in it as still down, not paged again',
    checks: [
      {
        at: T0,
        nodes: [...zone('a', 20, 2), ...calm],
        expect: expected({ kind: 'FIRING', severity: 'critical', firing: ['a-n00', 'a-n01'] }),
      },
      {
        at: T0 + MINUTE,
        nodes: [...a11, ...calm],
        expect: expected({
          kind: 'STORM',
          severity: 'critical',
          firing: names(a11).slice(2),
          reminders: ['a-n00', 'a-n01'],
          storm: 'active zone a=11/20',
        }),
      },
    ],
  },
  {
    name: 'a storm and a failure in another zone in the same check → one STORM naming both',
    checks: [
      {
        at: T0,
        nodes: [...a11, ...zone('b', 20, 1)],
        expect: expected({
          kind: 'STORM',
          severity: 'critical',
          firing: [...names(a11), 'b-n00'],
          storm: 'active zone a=11/20',
        }),
      },
    ],
  },
  {
    name: 'a storm that spreads to another zone, then to the cluster → STORM each time',
    checks: [
      {
        at: T0,
        nodes: [...a11, ...zone('b', 20, 0), ...zone('c', 20, 0)],
        expect: expected({
          kind: 'STORM',
          severity: 'critical',
          firing: names(a11),
          storm: 'active zone a=11/20',
        }),
      },
      {
        at: T0 + MINUTE,
        nodes: [...a11, ...zone('b', 20, 12), ...zone('c', 20, 0)],
        expect: expected({
          kind: 'STORM',
          severity: 'critical',
          firing: names(zone('b', 20, 12)),
          reminders: names(a11),
          storm: 'active zone a=11/20,b=12/20',
        }),
      },
      {
        at: T0 + 2 * MINUTE,
        nodes: [...a11, ...zone('b', 20, 12), ...zone('c', 20, 12)],
        expect: expected({
          kind: 'STORM',
          severity: 'critical',
          firing: names(zone('c', 20, 12)),
          reminders: [...names(a11), ...names(zone('b', 20, 12))],
          storm: 'active cluster a=11/20,b=12/20,c=12/20',
        }),
      },
    ],
  },
  {
    name: 'a storm that shrinks to fewer zones and grows back does not re-notify',
    checks: [
      {
        at: T0,
        nodes: [...a11, ...zone('b', 20, 11), ...zone('c', 40, 0)],
        expect: expected({
          kind: 'STORM',
          severity: 'critical',
          firing: [...names(a11), ...names(zone('b', 20, 11))],
          storm: 'active zone a=11/20,b=11/20',
        }),
      },
      {
        at: T0 + MINUTE,
        nodes: [...a11, ...b10, ...zone('c', 40, 0)],
        expect: expected({ kind: 'RESOLVED', severity: 'info', resolved: ['b-n10:recovered'] }),
      },
      {
        at: T0 + 2 * MINUTE,
        nodes: [
          ...a11,
          ...b10.map((n) => (n.name === 'b-ok00' ? { ...n, verdict: 'expired' as const } : n)),
          ...zone('c', 40, 0),
        ],
        expect: null,
      },
    ],
  },
  {
    name: 'storm nodes get reminders, grouped',
    checks: [
      {
        at: T0,
        nodes: [...zone('a', 3, 3), ...calm],
        expect: expected({
          kind: 'STORM',
          severity: 'critical',
          firing: names(zone('a', 3, 3)),
          storm: 'active zone a=3/3',
        }),
      },
      {
        at: T0 + 4 * HOUR,
        nodes: [...zone('a', 3, 3), ...calm],
        expect: expected({
          kind: 'REMINDER',
          severity: 'warning',
          reminders: names(zone('a', 3, 3)),
        }),
      },
    ],
  },
  {
    name: 'a read failure leaves the storm as it is',
    checks: [
      {
        at: T0,
        nodes: [...a11, ...calm],
        expect: expected({
          kind: 'STORM',
          severity: 'critical',
          firing: names(a11),
          storm: 'active zone a=11/20',
        }),
      },
      // Read failures page on the second in a row (readFailuresBeforePage).
      { at: T0 + MINUTE, failure: 'unreachable', expect: null },
      {
        at: T0 + 2 * MINUTE,
        failure: 'unreachable',
        expect: expected({
          kind: 'WATCHDOG',
          severity: 'critical',
          watchdog: 'failing unreachable',
        }),
      },
      {
        at: T0 + 3 * MINUTE,
        nodes: [...a11, ...calm],
        expect: expected({ kind: 'WATCHDOG', severity: 'info', watchdog: 'resolved unreachable' }),
      },
    ],
  },
];

/** 12 nodes, 4 per zone a/b/c; in each zone the last one is in node group `gpu`, the others in `general`. */
function grouped(silent: (name: string) => Verdict): NodeVerdict[] {
  return ['a', 'b', 'c'].flatMap((z) =>
    [0, 1, 2, 3].map((i) => {
      const name = `${z}-${i === 3 ? 'gpu' : `gen${i}`}`;
      return nv(name, silent(name), { zone: z, nodeGroup: i === 3 ? 'gpu' : 'general' });
    }),
  );
}
const gpuDown = grouped((name) => (name.endsWith('-gpu') ? 'expired' : 'healthy'));

const silentOnly: Scenario[] = [
  {
    name: 'not-ready nodes are not silent: 11 of 20 not-ready → per-node FIRING, no storm',
    checks: [
      {
        at: T0,
        nodes: [...zoneNodes('a', 'nr', 11, 'not-ready'), ...zoneNodes('a', 'ok', 9, 'healthy')],
        expect: expected({
          kind: 'FIRING',
          severity: 'critical',
          firing: zoneNodes('a', 'nr', 11, 'not-ready').map((n) => n.name),
        }),
      },
    ],
  },
  {
    name: '8 expired and 5 not-ready of 20 (13 alerting, 8 silent: 40 %) → FIRING, no storm',
    checks: [
      {
        at: T0,
        nodes: [
          ...zoneNodes('a', 'n', 8, 'expired'),
          ...zoneNodes('a', 'nr', 5, 'not-ready'),
          ...zoneNodes('a', 'ok', 7, 'healthy'),
        ],
        expect: expected({
          kind: 'FIRING',
          severity: 'critical',
          firing: [
            ...zoneNodes('a', 'n', 8, 'expired'),
            ...zoneNodes('a', 'nr', 5, 'not-ready'),
          ].map((n) => n.name),
        }),
      },
    ],
  },
  {
    name: 'during a zone storm a not-ready node of that zone fires on its own; a silent one joins quietly',
    checks: [
      {
        at: T0,
        nodes: [...a11, ...calm],
        expect: expected({
          kind: 'STORM',
          severity: 'critical',
          firing: names(a11),
          storm: 'active zone a=11/20',
        }),
      },
      {
        at: T0 + MINUTE,
        nodes: [
          ...a11.map((n) =>
            n.name === 'a-ok00'
              ? { ...n, verdict: 'not-ready' as const }
              : n.name === 'a-ok01'
                ? { ...n, verdict: 'expired' as const }
                : n,
          ),
          ...calm,
        ],
        expect: expected({ kind: 'FIRING', severity: 'critical', firing: ['a-ok00'] }),
      },
    ],
  },
];

const nodeGroupStorms: Scenario[] = [
  {
    name: 'every node of a node group goes silent, no zone crosses → one STORM naming the node group',
    checks: [
      {
        at: T0,
        nodes: gpuDown,
        expect: expected({
          kind: 'STORM',
          severity: 'critical',
          firing: ['a-gpu', 'b-gpu', 'c-gpu'],
          storm: 'active node-group  groups gpu=3/3',
        }),
      },
      { at: T0 + MINUTE, nodes: gpuDown, expect: null },
      {
        at: T0 + 2 * MINUTE,
        nodes: grouped(() => 'healthy'),
        expect: expected({
          kind: 'RESOLVED',
          severity: 'info',
          resolved: ['a-gpu:recovered', 'b-gpu:recovered', 'c-gpu:recovered'],
          storm: 'ended node-group  groups gpu=0/3',
        }),
      },
    ],
  },
  {
    name: 'a node-group storm that spreads to a zone → STORM again, naming both',
    checks: [
      {
        at: T0,
        nodes: gpuDown,
        expect: expected({
          kind: 'STORM',
          severity: 'critical',
          firing: ['a-gpu', 'b-gpu', 'c-gpu'],
          storm: 'active node-group  groups gpu=3/3',
        }),
      },
      {
        at: T0 + MINUTE,
        nodes: grouped((name) =>
          name.endsWith('-gpu') || name === 'a-gen0' || name === 'a-gen1' ? 'expired' : 'healthy',
        ),
        expect: expected({
          kind: 'STORM',
          severity: 'critical',
          firing: ['a-gen0', 'a-gen1'],
          reminders: ['a-gpu', 'b-gpu', 'c-gpu'],
          storm: 'active zone a=3/4 groups gpu=3/3',
        }),
      },
    ],
  },
  {
    name: 'not-ready nodes of a node group do not make it storm',
    checks: [
      {
        at: T0,
        nodes: grouped((name) => (name.endsWith('-gpu') ? 'not-ready' : 'healthy')),
        expect: expected({
          kind: 'FIRING',
          severity: 'critical',
          firing: ['a-gpu', 'b-gpu', 'c-gpu'],
        }),
      },
    ],
  },
];

describe('storms: only silent nodes count', () => {
  runScenarios(silentOnly);
});

describe('storms by node group', () => {
  runScenarios(nodeGroupStorms);

  test('the STORM carries a count and a fraction per node group', () => {
    // Act
    const out = alertsForEvaluation(
      evaluation({ nodes: gpuDown }),
      EMPTY_ALERT_STATE,
      DEFAULT_ALERT_POLICY,
      T0,
    );
    // Assess
    assert.deepStrictEqual(out.notification?.storm, {
      state: 'active',
      scope: 'node-group',
      zones: [],
      nodeGroups: [{ nodeGroup: 'gpu', total: 3, silent: 3 }],
      clusterTotal: 12,
      clusterSilent: 3,
      key: incidentKey('storm', 'prod-eu', '', T0),
    });
    assert.deepStrictEqual(out.state.storm, {
      scope: 'node-group',
      zones: [],
      nodeGroups: ['gpu'],
      since: T0,
    });
  });
});

describe('storms', () => {
  runScenarios(scenarios);

  test('the STORM carries the cluster counts; incidents open for every storm node', () => {
    // Prepare
    const nodes = [...a11, ...calm];
    // Act
    const out = alertsForEvaluation(
      evaluation({ nodes }),
      EMPTY_ALERT_STATE,
      DEFAULT_ALERT_POLICY,
      T0,
    );
    // Assess
    assert.deepStrictEqual(out.notification?.storm, {
      state: 'active',
      scope: 'zone',
      zones: [{ zone: 'a', total: 20, silent: 11 }],
      clusterTotal: 40,
      clusterSilent: 11,
      key: incidentKey('storm', 'prod-eu', '', T0),
    });
    assert.deepStrictEqual(Object.keys(out.state.incidents).sort(), names(a11));
    assert.deepStrictEqual(out.state.storm, { scope: 'zone', zones: ['a'], since: T0 });
  });
});
