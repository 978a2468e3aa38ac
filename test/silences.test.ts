/**
 * Silences and maintenance windows in the core: the cron matcher, which nodes a silence or a
 * window suppresses and with what reason, the audit period, and that neither is ever timed out as
 * a stuck removal. Table-driven, on a fixed clock.
 */
import assert from 'node:assert/strict';
import { describe, it, test } from 'node:test';
import { type CronSchedule, CronSyntaxError, lastFiring, parseCron } from '../lambda/core/cron.js';
import type { MaintenanceWindow } from '../lambda/core/maintenance-window.js';
import type { Verdict } from '../lambda/core/model.js';
import { parseSelector } from '../lambda/core/selector.js';
import {
  applySilences,
  endSilence,
  keptSilences,
  SILENCE_AUDIT_SECONDS,
  type Silence,
} from '../lambda/core/silences.js';
import { DEFAULT_ALERT_POLICY, parseWatchdogSettings } from '../lambda/settings/index.js';
import { evaluation, MINUTE, nv, runScenarios, SECOND, T0 } from '../testkit/alert-builders.js';

const HOUR_MS = 3600_000;
const minuteOf = (ms: number) => new Date(ms).toISOString().slice(0, 16).replace('T', ' ');
/** Sunday 2026-11-29 02:00 UTC. */
const SUNDAY_2AM = Date.UTC(2026, 10, 29, 2, 0);
/** Whether the schedule fires at the UTC minute that holds `ms`: its last firing within that minute. */
const cronMatches = (schedule: CronSchedule, ms: number) =>
  lastFiring(schedule, ms, (ms % MINUTE) + 1) !== undefined;

describe('cron (5 fields, UTC)', () => {
  const cases: { cron: string; at: number; fires: boolean }[] = [
    { cron: '0 2 * * sun', at: SUNDAY_2AM, fires: true },
    { cron: '0 2 * * 0', at: SUNDAY_2AM, fires: true },
    { cron: '0 2 * * 7', at: SUNDAY_2AM, fires: true },
    { cron: '0 2 * * mon-fri', at: SUNDAY_2AM, fires: false },
    { cron: '0 2 * * sun', at: SUNDAY_2AM + MINUTE, fires: false },
    { cron: '*/15 * * * *', at: SUNDAY_2AM + 45 * MINUTE, fires: true },
    { cron: '*/15 * * * *', at: SUNDAY_2AM + 46 * MINUTE, fires: false },
    { cron: '0 2 29 nov *', at: SUNDAY_2AM, fires: true },
    // Both day fields restricted: either matches (Vixie cron).
    { cron: '0 2 1 * sun', at: SUNDAY_2AM, fires: true },
    { cron: '0 2 1 * mon', at: SUNDAY_2AM, fires: false },
  ];
  for (const c of cases) {
    test(`"${c.cron}" at ${new Date(c.at).toISOString()}: ${c.fires ? 'fires' : 'does not'}`, () => {
      assert.equal(cronMatches(parseCron(c.cron), c.at), c.fires);
    });
  }

  it('finds the last firing within a span, and none outside it', () => {
    const weekly = parseCron('0 2 * * sun');
    assert.equal(lastFiring(weekly, SUNDAY_2AM + HOUR_MS, 2 * HOUR_MS), SUNDAY_2AM);
    assert.equal(lastFiring(weekly, SUNDAY_2AM + 2 * HOUR_MS, 2 * HOUR_MS), undefined);
    assert.equal(lastFiring(weekly, SUNDAY_2AM - 1, 2 * HOUR_MS), undefined);
    // Across midnight and a skipped day: Saturday 23:30 seen from Sunday 00:45.
    const late = parseCron('30 23 * * sat');
    const saturday = SUNDAY_2AM - 2 * HOUR_MS - 30 * MINUTE;
    assert.equal(lastFiring(late, SUNDAY_2AM - 75 * MINUTE, 2 * HOUR_MS), saturday);
    assert.equal(
      lastFiring(late, saturday + 7 * 24 * HOUR_MS - MINUTE, 7 * 24 * HOUR_MS),
      saturday,
    );
    assert.equal(lastFiring(parseCron('0 2 29 feb *'), SUNDAY_2AM, 7 * 24 * HOUR_MS), undefined);
  });

  const bad: [string, RegExp][] = [
    ['0 2 * *', /must have 5 fields/],
    ['60 2 * * *', /minute 60 is out of range 0-59/],
    ['0 2 * * funday', /"funday" is not a day of week/],
    ['0 5-2 * * *', /runs backwards/],
    ['*/0 * * * *', /step "0"/],
  ];
  for (const [cron, message] of bad) {
    test(`refuses "${cron}" with one line`, () => {
      assert.throws(
        () => parseCron(cron),
        (e: Error) =>
          e instanceof CronSyntaxError && message.test(e.message) && !e.message.includes('\n'),
      );
    });
  }
});

function silence(overrides: Partial<Silence> = {}): Silence {
  return {
    id: 's-3f9a2c',
    target: { nodes: ['a'] },
    comment: 'kernel upgrade',
    author: 'ops@laptop',
    createdAt: T0 - HOUR_MS,
    endsAt: T0 + HOUR_MS,
    ...overrides,
  };
}

const LABELS: Record<string, Record<string, string>> = {
  a: { 'topology.kubernetes.io/zone': 'eu-west-1a' },
  b: { 'topology.kubernetes.io/zone': 'eu-west-1b', 'eks.amazonaws.com/nodegroup': 'batch' },
};
const labelsOf = (name: string) => LABELS[name];

function judged(
  verdicts: ReturnType<typeof nv>[],
  silences: Silence[],
  windows: MaintenanceWindow[] = [],
  now = T0,
) {
  return applySilences(evaluation({ nodes: verdicts }), { silences, windows }, labelsOf, now);
}

describe('silences', () => {
  it('a silenced dead node is suppressed by "silenced", with the id, end and comment in its reason', () => {
    const result = judged([nv('a', 'expired'), nv('b', 'expired')], [silence()]);
    const [a, b] = result.nodes;
    assert.equal(a?.verdict, 'suppressed');
    assert.equal(a?.suppressedBy, 'silenced');
    assert.equal(a?.suppressedVerdict, 'expired');
    assert.match(
      a?.reason ?? '',
      new RegExp(`^silenced by s-3f9a2c until ${minuteOf(T0 + HOUR_MS)} UTC: "kernel upgrade"; `),
    );
    assert.equal(b?.verdict, 'expired', 'a node the silence does not name still alerts');
    assert.equal(result.summary.suppressed, 1);
    assert.equal(result.summary.expired, 1);
    assert.equal(result.zones[0]?.silent, 1, 'a silenced node is not counted silent for storms');
  });

  it('a planned one (startsAt) silences nothing before its start, and holds from it', () => {
    const planned = silence({ startsAt: T0 + MINUTE, endsAt: T0 + HOUR_MS });
    assert.equal(judged([nv('a', 'expired')], [planned]).nodes[0]?.verdict, 'expired');
    const from = judged([nv('a', 'expired')], [planned], [], T0 + MINUTE);
    assert.equal(from.nodes[0]?.suppressedBy, 'silenced', 'exactly at its start it holds');
  });

  it('from its end on, the node is judged as usual', () => {
    const result = judged([nv('a', 'expired')], [silence()], [], T0 + HOUR_MS);
    assert.equal(result.nodes[0]?.verdict, 'expired');
  });

  const kept: [string, Verdict, Partial<ReturnType<typeof nv>>, Verdict | undefined][] = [
    ['healthy', 'healthy', {}, undefined],
    ['not-ready', 'not-ready', {}, 'not-ready'],
    ['missing-lease', 'missing-lease', {}, 'missing-lease'],
    [
      'cordoned and silent',
      'suppressed',
      { suppressedBy: 'cordoned', suppressedVerdict: 'expired' },
      'expired',
    ],
  ];
  for (const [name, verdict, extra, hidden] of kept) {
    test(`${name}: ${hidden === undefined ? 'left as it is' : 'silenced, hiding its verdict'}`, () => {
      const [node] = judged([nv('a', verdict, extra)], [silence()]).nodes;
      if (hidden === undefined) {
        assert.equal(node?.verdict, verdict);
      } else {
        assert.equal(node?.suppressedBy, 'silenced');
        assert.equal(node?.suppressedVerdict, hidden);
      }
    });
  }

  it("the user's exclusion stays an exclusion", () => {
    const excluded = nv('a', 'suppressed', {
      suppressedBy: 'excluded',
      suppressedVerdict: 'expired',
    });
    assert.equal(judged([excluded], [silence()]).nodes[0]?.suppressedBy, 'excluded');
  });

  it('a selector silence matches on the labels the check kept; a node whose Node was not read is not matched', () => {
    const zoneB = silence({ target: { selector: 'topology.kubernetes.io/zone=eu-west-1b' } });
    const result = judged([nv('a', 'expired'), nv('b', 'expired'), nv('c', 'expired')], [zoneB]);
    assert.deepEqual(
      result.nodes.map((n) => n.verdict),
      ['expired', 'suppressed', 'expired'],
    );
  });

  it('hostile comments are quoted, control characters escaped', () => {
    const [node] = judged([nv('a', 'expired')], [silence({ comment: 'x\u001b[2Jy' })]).nodes;
    assert.ok(!node?.reason.includes('\u001b'));
    assert.match(node?.reason ?? '', /"x\\u001b\[2Jy"/);
  });

  it('a silence whose times the checker cannot honour silences nothing, and never throws', () => {
    const month = 30 * 24 * HOUR_MS;
    const skew = 5 * MINUTE;
    const cases: [string, Partial<Silence>, Verdict][] = [
      ['an end past the date range', { endsAt: 9e15 }, 'expired'],
      ['a fraction of a millisecond', { endsAt: T0 + 0.5 }, 'expired'],
      ['a month and the skew past the checker', { endsAt: T0 + month + skew + 1 }, 'expired'],
      ['created later than the checker (a fast clock)', { createdAt: T0 + skew + 1 }, 'expired'],
      ['a month past, within the skew', { endsAt: T0 + month + skew }, 'suppressed'],
      ['created within the skew', { createdAt: T0 + skew }, 'suppressed'],
    ];
    for (const [name, overrides, verdict] of cases) {
      const [node] = judged([nv('a', 'expired')], [silence(overrides)]).nodes;
      assert.equal(node?.verdict, verdict, name);
    }
  });

  it('ended silences are kept for the audit period (7 days), then dropped', () => {
    const ended = silence({ endsAt: T0 });
    assert.equal(keptSilences([ended], T0 + SILENCE_AUDIT_SECONDS * 1000 - 1).length, 1);
    assert.equal(keptSilences([ended], T0 + SILENCE_AUDIT_SECONDS * 1000).length, 0);
    assert.equal(SILENCE_AUDIT_SECONDS, 7 * 24 * 3600);
  });

  it('expire ends an active silence now, and refuses one already ended', () => {
    const ended = endSilence(silence(), T0, 'oncall@host');
    assert.equal(ended?.endsAt, T0);
    assert.equal(ended?.expiredBy, 'oncall@host');
    assert.equal(endSilence(silence({ endsAt: T0 - 1 }), T0, 'x'), undefined);
  });
});

describe('maintenance windows', () => {
  const window: MaintenanceWindow = {
    schedule: parseCron('0 2 * * sun'),
    durationSeconds: 2 * 3600,
    selector: parseSelector('eks.amazonaws.com/nodegroup=batch'),
    comment: 'node group patching',
  };

  it('a node inside an open window is suppressed by "maintenance", with the window and its end', () => {
    const result = judged(
      [nv('a', 'expired'), nv('b', 'expired')],
      [],
      [window],
      SUNDAY_2AM + HOUR_MS,
    );
    assert.equal(result.nodes[0]?.verdict, 'expired', 'the selector leaves node a out');
    const b = result.nodes[1];
    assert.equal(b?.suppressedBy, 'maintenance');
    assert.match(
      b?.reason ?? '',
      /^in maintenance window "0 2 \* \* sun" until 2026-11-29 04:00 UTC: "node group patching"; /,
    );
  });

  it('outside the window nothing changes; a window without selector covers every node', () => {
    assert.equal(
      judged([nv('b', 'expired')], [], [window], SUNDAY_2AM + 2 * HOUR_MS).nodes[0]?.verdict,
      'expired',
    );
    const all = { schedule: window.schedule, durationSeconds: 600 };
    assert.equal(
      judged([nv('a', 'expired')], [], [all], SUNDAY_2AM + 9 * MINUTE).nodes[0]?.suppressedBy,
      'maintenance',
    );
  });
});

describe('a silence or window is never a stuck removal', () => {
  const LIMIT = DEFAULT_ALERT_POLICY.stuckRemovalSeconds * SECOND;
  const held = (name: string, cause: 'silenced' | 'maintenance') =>
    nv(name, 'suppressed', { suppressedBy: cause, suppressedVerdict: 'expired' });
  runScenarios([
    {
      name: 'silenced and maintenance nodes, silent past stuckRemovalSeconds: nothing',
      checks: [
        { at: T0, nodes: [held('s', 'silenced'), held('m', 'maintenance')], expect: null },
        { at: T0 + LIMIT, nodes: [held('s', 'silenced'), held('m', 'maintenance')], expect: null },
        {
          at: T0 + 2 * LIMIT,
          nodes: [held('s', 'silenced'), held('m', 'maintenance')],
          expect: null,
        },
      ],
    },
  ]);
});

describe('maintenanceWindows in the config: one line per mistake', () => {
  const base = (windows: unknown) => ({
    clusters: [
      {
        name: 'prod',
        auth: { mode: 'eks', clusterName: 'prod' },
        maintenanceWindows: windows,
      },
    ],
  });
  const cases: [unknown, RegExp][] = [
    [
      [{ schedule: '0 2 * *', duration: '2h' }],
      /clusters\[0\]\.maintenanceWindows\[0\]\.schedule must be a cron expression: cron "0 2 \* \*" must have 5 fields/,
    ],
    [
      [{ schedule: '0 2 * * sun', duration: '0s' }],
      /maintenanceWindows\[0\]\.duration must be from 1m to 7 days/,
    ],
    [
      [{ schedule: '0 2 * * sun', duration: '169h' }],
      /maintenanceWindows\[0\]\.duration must be from 1m to 7 days/,
    ],
    [
      [{ schedule: '0 2 * * sun', duration: 'soon' }],
      /maintenanceWindows\[0\]\.duration must be a duration like "2h"/,
    ],
    [
      [{ schedule: '0 2 * * sun', duration: '2h', selector: 'a in (b' }],
      /maintenanceWindows\[0\]\.selector must be a label selector/,
    ],
    [
      [{ schedule: '0 2 * * sun', duration: '2h', when: 'x' }],
      /maintenanceWindows\[0\]\.when is not a known setting/,
    ],
  ];
  for (const [windows, message] of cases) {
    test(`${JSON.stringify(windows)}`, () => {
      assert.throws(
        () => parseWatchdogSettings(base(windows)),
        (e: Error) => message.test(e.message) && !e.message.includes('\n'),
      );
    });
  }

  it('a valid window parses', () => {
    const settings = parseWatchdogSettings(
      base([{ schedule: '0 2 * * sun', duration: '2h', comment: 'patching' }]),
    );
    assert.equal(settings.clusters[0]?.maintenanceWindows?.[0]?.duration, '2h');
  });
});
