/**
 * `npm run bench:bill`: the whole monthly bill of a default deployment, the headline of
 * docs/COST.md. What a deployment pays whatever it watches is counted from the template the stack
 * synthesizes (alarms, KMS keys, dashboards, queues that a Lambda polls), for 1, 10 and 100
 * clusters, and priced; the custom metrics are those the function writes every check
 * (lambda/adapters/metrics/emf-metrics.ts); what grows with the checks is the per-cluster variable
 * cost `npm run bench:cost` measured at 1,000 nodes (its table in the same file). Each optional
 * extra is priced the same way: the same synthesis with its setting on, the difference counted.
 *
 *   npm run bench:bill            (rewrites the section between the `cost:bill` markers)
 */
import { readFile, writeFile } from 'node:fs/promises';
import { IDLE_RECEIVES_PER_MONTH } from '../../testkit/cost-deployment.js';
import { PRICES } from '../../testkit/cost-prices.js';
import { BILL_MARK as MARK, placeBill } from './place-bill.js';
import { type Counted, count, eks, variablePerCluster } from './template-count.js';

const COST_MD = new URL('../../docs/COST.md', import.meta.url);
const GOAL_ONE_CLUSTER = 3;

const SOURCES = {
  cloudwatch: 'https://aws.amazon.com/cloudwatch/pricing/',
  kms: 'https://aws.amazon.com/kms/pricing/',
  sqs: 'https://aws.amazon.com/sqs/pricing/',
  secrets: 'https://aws.amazon.com/secrets-manager/pricing/',
  events: 'https://aws.amazon.com/eventbridge/pricing/',
};

/**
 * The custom metrics the function writes in every month of a healthy deployment: `CheckSucceeded`
 * per cluster (the dead-man's switch reads it), and the deployment-wide ones written on every
 * check (emf-metrics.ts); the failure counts are written only in a month with such a failure.
 */
const EVERY_CHECK_SERVICE_METRICS = ['ConfirmedSubscriptions'];

interface Line {
  readonly what: string;
  readonly dollars: (clusters: number) => number;
  readonly source: string;
}

const money = (x: number) => (x < 0.005 && x > 0 ? '<$0.01' : `$${x.toFixed(2)}`);

function lines(counted: ReadonlyMap<number, Counted>, variable: number): Line[] {
  const of = (clusters: number) => counted.get(clusters) as Counted;
  return [
    {
      what: 'checks, looks, state and logs: the variable cost of a 1,000-node cluster (the tables below), per cluster',
      dollars: (n) => n * variable,
      source: 'measured (`npm run bench:cost`)',
    },
    {
      what: "CloudWatch alarms (every dead-man's switch and the deployment's own), $0.10 each",
      dollars: (n) => of(n).alarms * PRICES.alarmMonth,
      source: `[CloudWatch pricing](${SOURCES.cloudwatch}), counted in the template`,
    },
    {
      what: `custom metrics: \`CheckSucceeded\` per cluster, ${EVERY_CHECK_SERVICE_METRICS.map((m) => `\`${m}\``).join(' and ')} per deployment, $0.30 each (the failure counts only in a month with a failure)`,
      dollars: (n) => (n + EVERY_CHECK_SERVICE_METRICS.length) * PRICES.customMetricMonth,
      source: `[CloudWatch pricing](${SOURCES.cloudwatch}); what emf-metrics.ts writes every check`,
    },
    {
      what: 'KMS key of the notification topic, $1.00 each',
      dollars: (n) => of(n).kmsKeys * PRICES.kmsKeyMonth,
      source: `[KMS pricing](${SOURCES.kms}), counted in the template`,
    },
    {
      what: 'CloudWatch dashboard, $3.00 each (the first three of an account are free)',
      dollars: (n) => of(n).dashboards * PRICES.dashboardMonth,
      source: `[CloudWatch pricing](${SOURCES.cloudwatch}), counted in the template`,
    },
    {
      what: 'SQS: the event source mapping long-polling the empty look queue',
      dollars: (n) => of(n).polledQueues * IDLE_RECEIVES_PER_MONTH * PRICES.sqsRequest,
      source: `[SQS pricing](${SOURCES.sqs}); the estimate under Fixed costs`,
    },
  ];
}

const SIZES = [1, 10, 100];

/** An optional extra: its setting, and what it adds to the one-cluster bill. */
interface Extra {
  readonly setting: string;
  readonly config: Record<string, unknown>;
  readonly also?: string;
}

const EXTRAS: readonly Extra[] = [
  {
    setting: '`alarmEmails` (a second path for the alarms)',
    config: { alarmEmails: ['ops@acme.io'] },
  },
  { setting: '`dashboard: true`', config: { dashboard: true } },
  { setting: '`chatNotifications: {}`', config: { chatNotifications: {} } },
  { setting: '`machineTopic: true`', config: { machineTopic: true } },
  {
    setting: '`eventBus: "default"`',
    config: { eventBus: 'default' },
    also: '+ $1.00 per million events put (one per notification: cents)',
  },
  {
    setting: '`pagerDuty`',
    config: { pagerDuty: { routingKeySecret: 'lease-watchdog/pagerduty' } },
    also: `+ $0.40 a month for the secret that holds its routing key ([pricing](${SOURCES.secrets})), which you create`,
  },
  {
    setting: '`opsgenie`',
    config: { opsgenie: { apiKeySecret: 'lease-watchdog/opsgenie' } },
    also: `+ $0.40 a month for the secret that holds its API key ([pricing](${SOURCES.secrets})), which you create; with \`pagerDuty\` too, the alarm is shared`,
  },
  {
    setting: 'a `token` or `kubeconfig` cluster instead of `eks`',
    config: {},
    also: `+ $0.40 a month for its Secrets Manager secret ([pricing](${SOURCES.secrets})), which you create`,
  },
];

function extraCost(base: Counted, withIt: Counted): number {
  return (
    (withIt.alarms - base.alarms) * PRICES.alarmMonth +
    (withIt.kmsKeys - base.kmsKeys) * PRICES.kmsKeyMonth +
    (withIt.dashboards - base.dashboards) * PRICES.dashboardMonth +
    (withIt.polledQueues - base.polledQueues) * IDLE_RECEIVES_PER_MONTH * PRICES.sqsRequest
  );
}

function render(
  counted: ReadonlyMap<number, Counted>,
  variable: number,
  extras: readonly number[],
): string {
  const all = lines(counted, variable);
  const total = (n: number) => all.reduce((sum, l) => sum + l.dollars(n), 0);
  const one = total(1);
  const verdict =
    one <= GOAL_ONE_CLUSTER
      ? `**met** ($${(GOAL_ONE_CLUSTER - one).toFixed(2)} to spare)`
      : `**missed** by $${(one - GOAL_ONE_CLUSTER).toFixed(2)}`;
  const table = [
    `| a month, default deployment, 1,000-node clusters | ${SIZES.map((n) => `${n} cluster${n === 1 ? '' : 's'}`).join(' | ')} | source |`,
    `|---|${SIZES.map(() => '---:').join('|')}|---|`,
    ...all.map(
      (l) => `| ${l.what} | ${SIZES.map((n) => money(l.dollars(n))).join(' | ')} | ${l.source} |`,
    ),
    `| **the whole bill** | ${SIZES.map((n) => `**${money(total(n))}**`).join(' | ')} | |`,
    `| per cluster | ${SIZES.map((n) => money(total(n) / n)).join(' | ')} | |`,
  ];
  const extraLines = EXTRAS.map((e, i) => {
    const counted = extras[i] ?? 0;
    const parts = [counted > 0 || !e.also ? `+ ${money(counted)} a month` : '', e.also ?? ''];
    return `- ${e.setting}: ${parts.filter((p) => p !== '').join(' ')}`;
  });
  return `${MARK}
## The whole bill

What a default deployment (\`lease-watchdog config init\`'s example with your own clusters and
one email; \`eks\` auth, nothing optional) costs a month, all in, at the list prices below, free
tiers ignored. Every resource billed by the month is counted in the template the stack
synthesizes (\`npm run bench:bill\`, which rewrites this section); the per-cluster variable cost is
the measured one of the tables below.

${table.join('\n')}

Goal: one 1,000-node cluster for ≤ $${GOAL_ONE_CLUSTER} a month all-in: ${money(one)}, ${verdict}.

Optional extras, each priced the same way (the one-cluster deployment synthesized with it on,
the difference counted):

${extraLines.join('\n')}
${MARK}`;
}

const doc = await readFile(COST_MD, 'utf8');
const counted = new Map(
  SIZES.map((n) => [
    n,
    count({ clusters: Array.from({ length: n }, (_, i) => eks(i)), emails: ['oncall@acme.io'] }),
  ]),
);
const base = counted.get(1) as Counted;
const extras = EXTRAS.map((e) =>
  extraCost(base, count({ clusters: [eks(0)], emails: ['oncall@acme.io'], ...e.config })),
);
const section = render(counted, variablePerCluster(doc), extras);
await writeFile(COST_MD, placeBill(doc, section));
console.log(section);
