/**
 * The figures of docs/RELIABILITY.md, as tests: every fault of the matrix
 * (testkit/reliability-matrix.ts) through the real handler and parts, counted against its ground
 * truth — nothing lost, nothing doubled beyond one per lost response, no false FIRING/STORM, never
 * silent; a simulated week (testkit/reliability-soak.ts) whose counts are zero and whose state size
 * and reminder gaps stay bounded; and the document is exactly what these runs render.
 */
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { before, describe, it } from 'node:test';
import { reliabilityMarkdown } from '../docs/reliability.js';
import {
  runScenario,
  SCENARIOS,
  type Scenario,
  type ScenarioResult,
} from '../testkit/reliability-matrix.js';
import { runSoak, type SoakResult } from '../testkit/reliability-soak.js';
import { NO_COUNTS } from '../testkit/reliability-tally.js';

/** Each run happens once, in the first test that reads it: every test stands alone. */
const scenarioRuns = new Map<Scenario, Promise<ScenarioResult>>();
function resultOf(scenario: Scenario): Promise<ScenarioResult> {
  const run = scenarioRuns.get(scenario) ?? runScenario(scenario);
  scenarioRuns.set(scenario, run);
  return run;
}
let soakRun: Promise<SoakResult> | undefined;
function soakResult(): Promise<SoakResult> {
  soakRun ??= runSoak();
  return soakRun;
}

describe('reliability: the fault matrix, through the real handler', () => {
  // The rows that mostly wait out real deadlines start at once, beside the others (each has a
  // harness of its own): ~40 s of waiting no longer runs in line.
  before(() => {
    for (const scenario of SCENARIOS.filter((s) => s.waitsOnRealTime)) {
      resultOf(scenario).catch(() => {}); // its test reports a failure
    }
  });
  for (const scenario of SCENARIOS) {
    it(scenario.name, async () => {
      const result = await resultOf(scenario);
      const why = `sent ${JSON.stringify(result.sent)}, truth ${JSON.stringify(result.truth)}`;
      assert.deepEqual(
        result.counts,
        {
          ...NO_COUNTS,
          duplicated: scenario.duplicates ?? 0,
          resent: scenario.resentAfterReset?.length ?? 0,
        },
        why,
      );
      assert.ok(
        result.counts.duplicated <= result.lostResponses,
        `at most one duplicate per lost response: ${why}`,
      );
    });
  }
});

describe('reliability: a simulated week', () => {
  it('loses nothing, doubles nothing, pages no stall, and stays bounded', async () => {
    const soak = await soakResult();
    assert.deepEqual(soak.counts, NO_COUNTS);
    assert.equal(soak.checks, 7 * 24 * 60);
    // Not vacuous: things went wrong, and were told.
    assert.ok(soak.stallChecks > 0, 'some checks fell inside a stall');
    assert.equal(soak.stallAlarms, 0, 'no FIRING or STORM from a 45-s stall');
    assert.ok((soak.sent.FIRING ?? 0) > 0 && (soak.sent.STORM ?? 0) > 0);
    assert.ok((soak.sent.FLAPPING ?? 0) > 0);
    assert.equal(soak.runs.busy, soak.injected['overlapping runs'], 'each overlap backed off once');
    // Reminders: never early, late by at most two checks (a failed read delays one).
    const { reminders } = soak;
    assert.ok(reminders.count > 0);
    assert.ok(reminders.minGapSeconds >= reminders.intervalSeconds, JSON.stringify(reminders));
    assert.ok(
      reminders.maxGapSeconds <= reminders.intervalSeconds + 120,
      JSON.stringify(reminders),
    );
    // State: no day's largest document outgrows the first day's; quiet again, it is as small.
    const [first, ...later] = soak.stateBytesPerDay;
    assert.ok(first);
    for (const day of later)
      assert.ok(day.json <= first.json * 1.1, JSON.stringify(soak.stateBytesPerDay));
    assert.ok(soak.quietStateBytes.last <= soak.quietStateBytes.first * 1.1);
  });
});

it('docs/RELIABILITY.md is what these runs measure (npm run docs:reliability rewrites it)', async () => {
  // One after the other, as runMatrix runs them (a row's deadlines are real time).
  const results: ScenarioResult[] = [];
  for (const scenario of SCENARIOS) results.push(await resultOf(scenario));
  const soak = await soakResult();
  assert.equal(results.length, SCENARIOS.length, 'every row ran');
  assert.ok(soak, 'the soak ran');
  const committed = await readFile(new URL('../docs/RELIABILITY.md', import.meta.url), 'utf8');
  assert.equal(committed, reliabilityMarkdown(results, soak));
});
