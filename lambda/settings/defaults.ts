/** The value of every setting that has one fixed default (see catalogue.ts for what each means). */
export const DEFAULTS = Object.freeze({
  namespace: 'kube-node-lease',
  gracePeriodSeconds: 50,
  startupGraceSeconds: 60,
  reminderIntervalSeconds: 14_400,
  readFailuresBeforePage: 2,
  stuckRemovalSeconds: 1_800,
  storm: Object.freeze({
    zoneFraction: 0.55,
    zoneMinNodes: 3,
    clusterFraction: 0.55,
    clusterMinNodes: 3,
  }),
  nodeRefreshSeconds: 900,
  requestTimeoutSeconds: 15,
  scheduleMinutes: 1,
  /** How often discovery looks for clusters (`discover.everyMinutes`). */
  discoveryMinutes: 5,
  logRetentionDays: 30,
  memoryMb: 512,
  /** `reservedConcurrency` is clusters × 2 + 1, at most this (parse.ts says why). */
  reservedConcurrencyCap: 200,
  stackName: 'LeaseWatchdog',
  intervalSeconds: 10,
});

/**
 * Schedule periods without a successful check before a dead-man's switch says so: a cluster's own
 * `CheckSucceeded` alarm, and the fleet's (a dispatched cluster is overdue; the dispatcher stopped).
 */
export const DEAD_MAN_PERIODS = 3;
