/**
 * One watched cluster: its name, how to reach it (auth), where its leases live, which nodes never
 * page. Declared once; the deployment file, the Lambda's environment and the JSON Schema use it.
 */
import * as z from 'zod';
import { CronSyntaxError, parseCron } from '../core/cron.js';
import { parseDuration } from '../core/duration.js';
import { commentProblem, MAX_WINDOW_SECONDS } from '../core/silences.js';
import { CLI_FLAGS } from './cli-flags.js';
import { DEFAULTS } from './defaults.js';
import { shown } from './errors.js';
import { labelSelectorRules } from './field-checks.js';
import { awsRegion, cliOption, flag, roleArn, strictObject, text } from './fields.js';
import { PATTERNS } from './patterns.js';
import { setting } from './registry.js';

export const AUTH_MODES = ['kubeconfig', 'token', 'eks'] as const;
export type AuthMode = (typeof AUTH_MODES)[number];

const AUTH_WHAT = `{"mode": "${AUTH_MODES.join('" | "')}", ...}`;

/** `clusters` in the deployment file (declared first: it heads the table). */
export const deployedClusters = setting({
  key: 'clusters[]',
  shownDefault: 'required unless `discover`',
  meaning: 'at least one (or `discover`); each with a `name` and an `auth`',
  schema: z.lazy(() => clusterList(deployedClusterSchema)),
});

/** A Secrets Manager secret name or ARN (the secret, never its value, is a setting). */
export function secretId() {
  return text({
    hint: 'the Secrets Manager secret name or ARN',
    check: (value) =>
      (value.startsWith('arn:') ? PATTERNS.SECRET_ARN : PATTERNS.SECRET_NAME).test(value)
        ? undefined
        : `must be a Secrets Manager secret name or ARN like arn:aws:secretsmanager:eu-west-1:123456789012:secret:my-secret (got ${shown(value)})`,
  });
}

/** What is wrong with a user or password in an https:// URL: `why` it must not carry one. */
function credentialsProblem(url: URL, why: string): string | undefined {
  if (url.username === '' && url.password === '') return undefined;
  return `must not carry a user or password (https://user:pass@host): ${why}`;
}

/** An https:// URL (of `what`) without credentials in it (they would end up in errors and logs). */
export const httpsUrlProblem = (what: string) => (server: string) => {
  const url = URL.parse(server);
  if (url?.protocol !== 'https:')
    return `must be the https:// URL of ${what} (got ${shown(server)})`;
  return credentialsProblem(url, 'keep credentials in the secret');
};

const kubeconfigAuth = strictObject(
  {
    mode: z.literal('kubeconfig'),
    secretId: secretId(),
    context: text({ hint: 'the kubeconfig context to use' }).optional(),
  },
  'a kubeconfig kept in Secrets Manager',
);

const tokenAuth = strictObject(
  {
    mode: z.literal('token'),
    server: text({
      hint: 'the https:// URL of the Kubernetes API server',
      check: httpsUrlProblem('the Kubernetes API server'),
    }),
    caData: text({
      hint: 'the base64 PEM of the cluster CA',
      pattern: PATTERNS.BASE64,
      invalid: () =>
        "must be base64 of the cluster CA certificate (PEM), as in a kubeconfig's certificate-authority-data",
    }).optional(),
    tokenSecretId: secretId(),
  },
  'a bearer token kept in Secrets Manager',
);

export const EKS_CLUSTER_NAME_PROBLEM = (name: string) =>
  `must be an EKS cluster name: letters, digits, '-' and '_' (got ${shown(name)})`;

const eksAuth = strictObject(
  {
    mode: z.literal('eks'),
    clusterName: text({
      hint: 'the EKS cluster name',
      pattern: PATTERNS.EKS_CLUSTER_NAME,
      invalid: EKS_CLUSTER_NAME_PROBLEM,
    }).optional(),
    region: awsRegion('the AWS region of the cluster').optional(),
    roleArn: roleArn(
      "the IAM role in the cluster's account that the function assumes",
      'lease-watchdog-reader',
    ).optional(),
  },
  'an EKS cluster',
);

const name = setting({
  key: 'clusters[].name',
  shownDefault: 'required',
  meaning:
    'unique (letters, digits, `.`, `_`, `-`): it names the cluster in emails, metrics and the schedule',
  schema: text({
    hint: 'give each cluster a unique name, e.g. "prod-eu"',
    pattern: PATTERNS.CLUSTER_NAME,
    invalid: (value) =>
      `must be 1-100 letters, digits, '.', '_' or '-', starting with a letter or digit (got ${shown(value)})`,
  }),
});

cliOption(CLI_FLAGS.kubeconfig);
cliOption(CLI_FLAGS.context);
const auth = setting({
  key: 'clusters[].auth',
  shownDefault: 'required',
  meaning:
    '`{"mode":"eks","clusterName","region"?,"roleArn"?}`: endpoint and CA from `eks:DescribeCluster`, an IAM token made in the function (no aws CLI, no exec plugin); with `roleArn`, both as that role (STS AssumeRole), for a cluster in another account ([set-up there](docs/DEPLOY.md#clusters-in-other-accounts)); `{"mode":"token","server","caData"?,"tokenSecretId"}`: a bearer token kept in Secrets Manager; `{"mode":"kubeconfig","secretId","context"?}`: a whole kubeconfig kept in Secrets Manager (exec plugins do not exist in Lambda: use `eks` mode for EKS; a `proxy-url` may name an http:// proxy, reached by CONNECT with TLS to the API server inside). TLS verification is always on',
  schema: z.discriminatedUnion('mode', [kubeconfigAuth, tokenAuth, eksAuth], {
    error: (issue) => {
      const input = issue.input;
      if (input === undefined) return `is required: ${AUTH_WHAT}`;
      if (typeof input !== 'object' || input === null || Array.isArray(input)) {
        return `must be an object (how to reach the cluster: ${AUTH_WHAT}), got ${shown(input)}`;
      }
      const mode = (input as { mode?: unknown }).mode;
      if (mode === undefined) return `is required: one of ${AUTH_MODES.join(', ')}`;
      return `must be one of ${AUTH_MODES.join(', ')} (got ${shown(mode)})`;
    },
  }),
});

const namespace = setting({
  key: 'clusters[].namespace',
  shownDefault: '`kube-node-lease`',
  meaning: 'where the node leases live',
  cli: CLI_FLAGS.namespace,
  schema: text(CLI_FLAGS.namespace.rule.text),
});

const excludeSelector = setting({
  key: 'clusters[].excludeSelector',
  shownDefault: 'none',
  meaning: 'label selector of nodes never to page about, e.g. `lease-watchdog.io/ignore`',
  cli: CLI_FLAGS.exclude,
  schema: text(CLI_FLAGS.exclude.rule.text),
});

/** A window's duration in seconds: from 1 minute to a week. */
function windowDurationProblem(value: string): string | undefined {
  const seconds = parseDuration(value);
  if (seconds === undefined) return `must be a duration like "2h" or "90m" (got ${shown(value)})`;
  if (seconds < 60 || seconds > MAX_WINDOW_SECONDS) {
    return `must be from 1m to 7 days (168h) (got ${shown(value)})`;
  }
  return undefined;
}

const maintenanceWindow = strictObject(
  {
    schedule: text({
      hint: 'a 5-field cron expression in UTC, e.g. "0 2 * * sun"',
      check: (value) => {
        try {
          parseCron(value);
          return undefined;
        } catch (error) {
          if (error instanceof CronSyntaxError)
            return `must be a cron expression: ${error.message}`;
          throw error;
        }
      },
    }),
    duration: text({ hint: 'how long each window lasts, e.g. "2h"', check: windowDurationProblem }),
    selector: text(labelSelectorRules('eks.amazonaws.com/nodegroup=batch')).optional(),
    comment: text({
      hint: 'why, shown in the reason of each node it suppresses',
      check: (value) => {
        const problem = commentProblem(value);
        return problem === undefined ? undefined : `${problem} (got ${shown(value)})`;
      },
    }).optional(),
  },
  'a maintenance window: {"schedule": "0 2 * * sun", "duration": "2h", "selector"?, "comment"?}',
);

const maintenanceWindows = setting({
  key: 'clusters[].maintenanceWindows',
  shownDefault: 'none',
  meaning:
    'recurring windows in which nodes that would page are `suppressed` (cause `maintenance`): `[{"schedule": "0 2 * * sun", "duration": "2h", "selector"?: "…", "comment"?: "…"}]`. `schedule` is 5-field cron (minute hour day-of-month month day-of-week) in UTC; a window opens at each time it names and lasts `duration` (1m to 7 days); without `selector` it covers every node of the cluster. Keys named by a `selector` are kept of every Node',
  schema: z.array(maintenanceWindow, {
    error: (issue) => `must be a list of maintenance windows (got ${shown(issue.input)})`,
  }),
});

const accessEntry = setting({
  key: 'clusters[].accessEntry',
  places: ['file'],
  shownDefault: '`true` (eks without `roleArn`)',
  meaning:
    "create the EKS access entry that maps the function's role to the Kubernetes group `lease-watchdog` (same account and region; never with `auth.roleArn`: that cluster's account creates it)",
  schema: flag(),
});

/** An https:// URL without credentials: it is shown to everyone who gets the alerts. */
function runbookUrlProblem(value: string): string | undefined {
  const url = URL.parse(value);
  if (url?.protocol !== 'https:' || value.length > 1000 || /\s/.test(value)) {
    return `must be an https:// URL of at most 1000 characters, e.g. https://wiki.example.com/runbooks/node-down (got ${shown(value)})`;
  }
  return credentialsProblem(url, 'every recipient of the alerts sees it');
}

const runbookUrl = setting({
  key: 'clusters[].runbookUrl',
  shownDefault: 'none',
  meaning:
    "the team's runbook for a dead node of this cluster: shown in the emails, chat messages and the JSON document (`runbookUrl`)",
  schema: text({ hint: 'an https:// URL', check: runbookUrlProblem }),
});

const CLUSTER_WHAT = 'one cluster: {"name": ..., "auth": {...}}';

/** A cluster as the function sees it. */
export const clusterSchema = strictObject(
  {
    name,
    auth,
    namespace: namespace.default(DEFAULTS.namespace),
    excludeSelector: excludeSelector.optional(),
    runbookUrl: runbookUrl.optional(),
    maintenanceWindows: maintenanceWindows.optional(),
  },
  CLUSTER_WHAT,
);

/** A cluster as the deployment file holds it: the function's view plus what only the stack needs. */
const deployedClusterSchema = strictObject(
  { ...clusterSchema.shape, accessEntry: accessEntry.optional() },
  CLUSTER_WHAT,
);

/** What `clusters` is missing: a deployment watches at least one cluster, listed or discovered. */
export const NO_CLUSTERS = 'list at least one cluster to watch, or set discover';

const listError = (issue: { input?: unknown }) =>
  issue.input === undefined
    ? `is required: ${NO_CLUSTERS}`
    : `must be a list of clusters, got ${shown(issue.input)}`;

/** `clusters`: none only with `discover` (parse.ts checks; absent is the empty list then). */
export function clusterList<S extends z.ZodType>(cluster: S) {
  return z.array(cluster, { error: listError }).optional();
}
