/**
 * How `npm run bench:cost` turns measured CPU into billed Lambda duration: a check is mostly CPU,
 * and a 512 MB function gets 512 / 1,769 of a vCPU (Lambda developer guide, configuration-memory),
 * so a check billed at this machine's wall time (a full core, or more) is billed too little.
 * Pricing only: nothing is measured.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MEMORY_GB, RUNS_PER_MONTH, SUPERSEDED_PER_MONTH } from '../testkit/cost-deployment.js';
import { monthly, type PerCheck, type PerRun } from '../testkit/cost-monthly.js';
import { PRICES } from '../testkit/cost-prices.js';

const RUN: PerRun = {
  writeUnits: 1,
  readUnits: 1,
  publishes: 0,
  logBytes: 1000,
  logLines: 1,
  metricRecords: 2,
  handlerSeconds: 0.4,
};

/** A check of 1 s of its own CPU (more than its wall time here, with GC and zlib on other cores). */
const CHECK: PerCheck = {
  nodes: 5000,
  steadyCpuSeconds: 1,
  floorCpuSeconds: 1,
  relistCpuSeconds: 1,
  lookShare: 0.5,
  supersededShare: 0.01,
  check: RUN,
  look: { ...RUN, handlerSeconds: 0.2 },
  superseded: { ...RUN, readUnits: 0, writeUnits: 0, handlerSeconds: 0.004 },
  snapshotUnits: 0,
  storedBytes: 0,
  distinctMetrics: 1,
};

const COMPUTE = 'Lambda compute (GB-s)';
/** A CPU-second on a 512 MB function: 1,769 / 512 seconds of 0.5 GB. */
const BILLED_CPU_SECOND = (1769 / 512) * MEMORY_GB * PRICES.lambdaGbSecondArm;

describe('bench:cost prices CPU at the 512 MB function’s share of a vCPU', () => {
  it('bills a scheduled check its own CPU ÷ (512 / 1,769), not the wall time measured here', () => {
    // A relist no dearer than a look: no relist extra.
    const compute = monthly({ ...CHECK, lookShare: 1 }, 0)[COMPUTE] ?? Number.NaN;
    const expected = RUNS_PER_MONTH * BILLED_CPU_SECOND;
    assert.ok(
      Math.abs(compute - expected) < 1e-9,
      `Lambda compute ${compute.toFixed(4)}, expected ${expected.toFixed(4)}`,
    );
  });

  it('bills a look at its measured share of a steady check, a superseded one at its own, and a relist’s extra CPU once per refresh', () => {
    const looks = 10;
    const relisting = { ...CHECK, relistCpuSeconds: 3 };
    const compute = monthly(relisting, looks)[COMPUTE] ?? Number.NaN;
    const relistsPerMonth = (RUNS_PER_MONTH * 60) / 900;
    // Each look: half a steady check's CPU; each superseded look (they come with the looks that
    // read): a hundredth; each relist: its CPU beyond the cheaper look's.
    const cpuSeconds =
      RUNS_PER_MONTH * 1 + looks * 0.5 + SUPERSEDED_PER_MONTH * 0.01 + relistsPerMonth * (3 - 0.5);
    const expected = cpuSeconds * BILLED_CPU_SECOND;
    assert.ok(
      Math.abs(compute - expected) < 1e-9,
      `Lambda compute ${compute.toFixed(4)}, expected ${expected.toFixed(4)}`,
    );
  });
});
