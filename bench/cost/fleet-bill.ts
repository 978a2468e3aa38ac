/**
 * The fleet's bill in docs/COST.md (written by `npm run bench:fleet`): a thousand 1,000-node
 * clusters through the dispatcher, a month, all in. The per-cluster check cost is bench:cost's
 * measured one at 1,000 nodes without its own schedule; the dispatcher's run is what bench:fleet
 * measured; what is billed by the month is counted in the template the stack synthesizes for
 * 1,000 dispatched clusters; the prices are testkit/cost-prices.ts's.
 */
import {
  IDLE_RECEIVES_PER_MONTH,
  MEMORY_GB,
  RUNS_PER_MONTH,
} from '../../testkit/cost-deployment.js';
import { PRICES } from '../../testkit/cost-prices.js';
import { FLEET_MARK } from './place-bill.js';
import { count, eks, perClusterAt1000, variablePerCluster } from './template-count.js';

const FLEET = 1_000;
const GOAL_SWITCH = 0.1;
/** Per dispatched check: a tenth of a SendMessageBatch, the mapping's ReceiveMessage and delete. */
const DISPATCH_REQUESTS_PER_CHECK = 0.1 + 1 + 1;
/** The dispatcher's Query of the ledger: ~60 bytes a cluster, strongly consistent 4 KB units. */
const LEDGER_READ_UNITS = Math.ceil((FLEET * 60) / 4096);
/** The metrics written every month: ClustersOverdue and ConfirmedSubscriptions (no CheckSucceeded). */
const FLEET_METRICS = 2;
const FLEET_ALARMS = ['ClustersOverdueAlarm', 'DispatcherStoppedAlarm', 'DispatchDeadLetterAlarm'];

const money = (x: number) => (x < 0.005 && x > 0 ? '<$0.01' : `$${x.toFixed(2)}`);

/** The section, markers included; `dispatcherSeconds`: one dispatcher run, measured. */
export function fleetBill(doc: string, dispatcherSeconds: number, date: string): string {
  const counted = count({
    clusters: Array.from({ length: FLEET }, (_, i) => eks(i)),
    emails: ['oncall@acme.io'],
    dispatch: true,
  });
  const checks = FLEET * (variablePerCluster(doc) - perClusterAt1000(doc, 'EventBridge Scheduler'));
  const dispatch = FLEET * RUNS_PER_MONTH * DISPATCH_REQUESTS_PER_CHECK * PRICES.sqsRequest;
  const ledger =
    FLEET * RUNS_PER_MONTH * PRICES.dynamoWriteUnit +
    RUNS_PER_MONTH * LEDGER_READ_UNITS * PRICES.dynamoReadUnit;
  const dispatcher =
    RUNS_PER_MONTH *
    (PRICES.schedulerInvocation +
      PRICES.lambdaRequest +
      dispatcherSeconds * MEMORY_GB * PRICES.lambdaGbSecondArm);
  const alarms = counted.alarms * PRICES.alarmMonth;
  const metrics = FLEET_METRICS * PRICES.customMetricMonth;
  const fixed =
    counted.kmsKeys * PRICES.kmsKeyMonth +
    counted.polledQueues * IDLE_RECEIVES_PER_MONTH * PRICES.sqsRequest;
  const rows: [string, number][] = [
    [
      `checks, looks, state and logs of a 1,000-node cluster (the table below, less its own schedule), × ${FLEET}`,
      checks,
    ],
    [
      `the dispatch queue: per check a tenth of a SendMessageBatch, a ReceiveMessage and a delete (${DISPATCH_REQUESTS_PER_CHECK} requests)`,
      dispatch,
    ],
    [
      'the ledger of successful checks: one PutItem (1 write unit) per check, one Query a run',
      ledger,
    ],
    [
      `the dispatcher: one Scheduler invocation and one ${dispatcherSeconds.toFixed(2)} s run a minute (measured by bench:fleet)`,
      dispatcher,
    ],
    [
      `CloudWatch alarms: ${counted.alarms} (the deployment's and the fleet's ${FLEET_ALARMS.length}), $0.10 each`,
      alarms,
    ],
    [`custom metrics: \`ClustersOverdue\` and \`ConfirmedSubscriptions\`, $0.30 each`, metrics],
    [
      `KMS key of the topic; the event source mappings' idle long polling (${counted.polledQueues} queues)`,
      fixed,
    ],
  ];
  const total = rows.reduce((sum, [, x]) => sum + x, 0);
  const switchCost =
    (ledger + FLEET_ALARMS.slice(0, 2).length * PRICES.alarmMonth + PRICES.customMetricMonth) /
    FLEET;
  return `${FLEET_MARK}
## A fleet of 1,000 clusters (${date})

A thousand 1,000-node \`eks\` clusters in one deployment through the dispatcher (\`dispatch: true\`,
or discovered: docs/FLEET.md), a month, all in, at the prices below. Written by
\`npm run bench:fleet\`: the checks' cost is the measured one of the 1,000-node column below
(without the cluster's own schedule, which the dispatcher replaces); the resources billed by the
month are counted in the template synthesized for 1,000 dispatched clusters.

| a month, 1,000 clusters of 1,000 nodes | fleet | per cluster |
|---|---:|---:|
${rows.map(([what, x]) => `| ${what} | ${money(x)} | ${money(x / FLEET)} |`).join('\n')}
| **the whole bill** | **${money(total)}** | **${money(total / FLEET)}** |

The fleet-wide dead-man's switch (the ledger's writes and reads, \`ClustersOverdue\` and its two
alarms) costs ${money(switchCost * FLEET)} a month for the fleet, ${money(switchCost)} per cluster-month: goal ≤ $${GOAL_SWITCH.toFixed(2)}, ${switchCost <= GOAL_SWITCH ? '**met**' : '**missed**'} (a cluster of its own schedule pays $0.40 for its metric and alarm).
${FLEET_MARK}`;
}
