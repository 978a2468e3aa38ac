/**
 * The prose of an email around the node lists: what a storm means and what to check, what a
 * failing watchdog means and what to check, what Kubernetes does next with silent nodes, and the
 * kubectl commands to look further.
 */
import { awsInstanceId, regionOfZone } from '../../../core/aws-instance.js';
import type { ClusterReadFailure } from '../../../core/model.js';
import type { AlertNode, Notification, StormInfo } from '../../../core/notification.js';
import { clusterSilentIn, silentIn } from '../../../core/storms.js';
import {
  block,
  bodyText,
  bullets,
  fmt,
  labelled,
  moment,
  nodeGroupName,
  nodeName,
  period,
  titled,
  wrap,
  zoneName,
} from './format.js';
import { stormPhrase } from './subject.js';
import { shellWord } from './text.js';

/** A storm's scope in words: its disruption, and whose nodes went silent. */
const SCOPE_WORDS: Readonly<Record<StormInfo['scope'], readonly [string, string]>> = {
  zone: ['zone', 'nodes of a zone'],
  'node-group': ['node group', 'nodes of a node group'],
  cluster: ['cluster-wide', 'of the cluster'],
};

/** `kubectl`: kubectl with the cluster's context (kubectlFor). */
export function stormLines(storm: StormInfo, kubectl: string): string[] {
  const [scope, most] = SCOPE_WORDS[storm.scope] ?? SCOPE_WORDS.zone;
  if (storm.state === 'ended') {
    return [
      ...titled('STORM OVER'),
      ...wrap(
        `The ${scope} disruption reported earlier is over: ` +
          `${fmt(clusterSilentIn(storm))} of ${fmt(storm.clusterTotal)} nodes are silent now, below the storm threshold. ` +
          'Nodes still down stay open as incidents and are listed on their own.',
      ),
    ];
  }
  const groups = (storm.nodeGroups ?? []).length > 0;
  return [
    ...titled(`STORM: ${stormPhrase(storm)}`),
    ...wrap(
      `Most ${most} went silent in the same check. ` +
        'When that many nodes stop heart-beating together, the likely cause is the network or ' +
        `the control plane${groups ? ', or something the nodes of a group share' : ''}, not the nodes.`,
    ),
    '',
    ...stormTable(storm),
    '',
    'What to check',
    ...bullets([
      "The zone's network: subnets, route tables, NAT gateways, Transit Gateway or VPN links, " +
        'security groups between the nodes and the API server endpoint.',
      ...(groups
        ? [
            'The node group: a rollout in progress (AMI or launch template update), its security ' +
              'groups, instance profile or bootstrap settings, a spot capacity reclaim.',
          ]
        : []),
      `The control plane: API server and etcd health (${kubectl} get --raw '/readyz?verbose'), and ` +
        'the AWS Health Dashboard for the region and zone.',
      `One node of the ${groups && storm.zones.length === 0 ? 'node group' : 'zone'}: can it still reach the API server? (${kubectl} describe node, then ` +
        'the kubelet log on the instance: journalctl -u kubelet)',
    ]),
  ];
}

/** Silent and total nodes per zone, then per node group (when any), then for the cluster. */
function stormTable(storm: StormInfo): string[] {
  const zones = storm.zones.map((z) => [zoneName(z.zone), silentIn(z), z.total] as const);
  const groups = (storm.nodeGroups ?? []).map(
    (g) => [nodeGroupName(g.nodeGroup), silentIn(g), g.total] as const,
  );
  const width = Math.max(10, ...[...zones, ...groups].map(([name]) => name.length));
  const row = (name: string, silent: string, total: string) =>
    `  ${name.padEnd(width)}  ${silent.padStart(8)}  ${total.padStart(8)}`;
  const table = (what: string, rows: typeof zones) => [
    row(what, 'silent', 'total'),
    ...rows.map(
      ([name, silent, total]) =>
        row(name, fmt(silent), fmt(total)) +
        (total > 0 ? ` (${Math.round((silent / total) * 100)} %)` : ''),
    ),
  ];
  const tables = [
    ...(zones.length > 0 || groups.length === 0 ? [table('zone', zones)] : []),
    ...(groups.length > 0 ? [table('node group', groups)] : []),
  ];
  return [
    ...tables.flatMap((lines, i) => (i > 0 ? ['', ...lines] : lines)),
    row('cluster', fmt(clusterSilentIn(storm)), fmt(storm.clusterTotal)),
  ];
}

type Failure = ClusterReadFailure | 'unknown';

/** What a read failure of this kind usually means; NAMESPACE stands for the lease namespace. */
const FAILURE_HINTS: Readonly<Record<Failure, string>> = {
  config:
    'The cluster settings cannot be used: check the kubeconfig or the server URL, CA data and ' +
    'token given to the watchdog.',
  unavailable:
    'AWS throttled or failed (5xx) a call the watchdog needs to reach the cluster (Secrets ' +
    'Manager, STS or eks:DescribeCluster): the settings are fine; it passes when AWS recovers.',
  'exec-plugin':
    'The kubeconfig needs an exec credential plugin (such as aws-iam-authenticator or the aws ' +
    'CLI), which does not exist here: use the eks authentication mode instead.',
  unreachable:
    'The API server could not be reached: DNS, routing, security groups, or the EKS endpoint ' +
    'access setting (public/private) between the watchdog and the cluster.',
  tls: 'TLS verification failed: the CA data given to the watchdog does not match the API server certificate.',
  unauthorized:
    'The API server rejected the credentials (401): an expired or revoked token, or an IAM role ' +
    'that is not mapped into the cluster (EKS access entry or aws-auth).',
  forbidden:
    'RBAC denies the watchdog a verb it needs (403): apply deploy/rbac.yaml, which grants get ' +
    'and list on leases in NAMESPACE and on nodes.',
  'not-found':
    'The API answered 404: the lease namespace may not exist (the watchdog reads NAMESPACE in ' +
    'this cluster).',
  server:
    'The API server answered with an error (5xx) or an unreadable answer: check its health and ' +
    'the control plane logs.',
  'invalid-response':
    'The API server answered, but not with the list asked for (an empty object, a Status, a ' +
    "proxy's HTML page, another kind) or with a list beyond the watchdog's bounds (pages too " +
    'large or too many, a repeating continue token): check what sits between the watchdog and ' +
    'the API server (proxies, aggregated APIs) and the server URL.',
  timeout:
    'The API server did not answer in time: a slow or overloaded control plane, or packets ' +
    'dropped on the network path.',
  aborted:
    'The read was cut off by the watchdog deadline (the Lambda timeout): the API server was too ' +
    'slow to answer.',
  unknown: 'The read failed for a reason the watchdog did not recognise; see the message above.',
};

/**
 * The watchdog's own trouble (or its end), with what to check; `namespace`: the lease namespace,
 * `kubectl`: kubectl with the cluster's context (kubectlFor).
 */
export function watchdogLines(n: Notification, namespace: string, kubectl: string): string[] {
  const w = n.watchdog;
  if (!w) return [];
  const failed = `${w.failure}: ${bodyText(w.message, 1000) || '(no message)'}`;
  if (w.state === 'resolved') {
    return block({
      title: 'WATCHDOG RESOLVED: the watchdog can read this cluster again',
      facts: { 'It had failed': failed, From: period(w.since, n.at) },
      prose:
        'Node failures during that time could not be seen; the nodes listed below (if any) are ' +
        'what the watchdog finds now.',
    });
  }
  return block({
    title: 'WATCHDOG: the watchdog cannot read this cluster',
    facts: { 'What failed': failed, Since: moment(w.since, n.at) },
    prose:
      'Until reads work again, node failures in this cluster go unnoticed. A cluster the ' +
      'watchdog cannot read is not a healthy cluster.',
    checks: [
      (FAILURE_HINTS[w.failure] ?? FAILURE_HINTS.unknown).replace('NAMESPACE', () => namespace),
      'Network path: from the watchdog (its VPC, subnets, security groups, NAT) to the API ' +
        'server endpoint.',
      'Credentials: the secret or IAM role the watchdog uses is still valid and still mapped ' +
        'into the cluster.',
      `RBAC: deploy/rbac.yaml is applied (${kubectl} auth can-i list leases -n ${shellWord(namespace)} ` +
        '--as <the watchdog identity>).',
    ],
  });
}

export function nextInKubernetes(n: Notification, down: readonly AlertNode[]): string[] {
  const points: string[] = [];
  const verdicts = new Set(down.map((x) => x.verdict));
  const stormActive = n.storm !== undefined && n.storm.state !== 'ended';
  if (verdicts.has('expired') || verdicts.has('missing-lease') || stormActive) {
    points.push(
      'The node lifecycle controller marks a node whose lease stops renewing NotReady/Unknown ' +
        'after node-monitor-grace-period (50s since Kubernetes 1.32, 40s before) and taints ' +
        'it node.kubernetes.io/unreachable:NoExecute.',
    );
  }
  if (verdicts.has('not-ready')) {
    points.push(
      'A node that reports Ready=False keeps renewing its lease; it is tainted ' +
        'node.kubernetes.io/not-ready:NoExecute.',
    );
  }
  points.push(
    'Pods are evicted once their toleration of that taint runs out (tolerationSeconds, 300s by ' +
      'default) and their controllers recreate them on other nodes. StatefulSet pods and ' +
      'volumes attached to the node wait until the node is confirmed gone or deleted.',
  );
  if (stormActive) {
    points.push(
      'In a zone where at least 55 % of nodes are unhealthy the controller slows evictions ' +
        '(0.01 nodes/s, none in clusters of 50 nodes or fewer), and it stops them altogether ' +
        'when every zone is fully disrupted: pods may stay bound to the silent nodes.',
    );
  }
  points.push(
    'Nothing replaces the machine unless something does it on purpose: the cluster autoscaler, ' +
      'Karpenter, EKS node auto-repair or a machine health check.',
  );
  return ['What happens next in Kubernetes', ...bullets(points)];
}

/**
 * How a reader reaches the cluster with kubectl, as the cluster's `auth` setting says; neither
 * (a bearer token): the commands stand the cluster's name for the reader's context (kubectlFor).
 */
export interface KubeAccess {
  /** The kubeconfig context the watchdog uses (`kubeconfig` mode, the CLI's context). */
  readonly context?: string | undefined;
  /** `eks` mode: the EKS cluster; the commands first make a kubeconfig context for it. */
  readonly eks?: { readonly clusterName: string; readonly region?: string | undefined } | undefined;
}

/** Where a cluster lives in AWS, as its settings say (`eks` clusters). */
export interface AwsPlace {
  readonly region: string;
  /** The AWS account, when known (the deployment's, for an `eks` cluster it reaches itself). */
  readonly account?: string | undefined;
}

/**
 * The AWS region and account of the cluster, for the email's head: an `eks` cluster's from its
 * settings; otherwise the region of the AWS nodes' zones (the account is unknown: not guessed).
 * Nothing when the cluster has no AWS node.
 */
export function awsLines(nodes: readonly AlertNode[], place: AwsPlace | undefined): string[] {
  if (place) {
    const account = place.account ? bodyText(place.account, 12) : 'unknown';
    return labelled('AWS', `account ${account}, region ${bodyText(place.region, 40)}`);
  }
  const regions = new Set<string>();
  for (const x of nodes) {
    const region = awsInstanceId(x.instance) ? regionOfZone(x.zone) : undefined;
    if (region) regions.add(region);
    if (regions.size > 3) break;
  }
  if (regions.size === 0) return [];
  return labelled(
    'AWS',
    `account unknown, region ${[...regions].sort().join(', ')} (from the nodes' zones)`,
  );
}

/**
 * The AWS commands for an example node on EC2: its instance status (every state, not only
 * running) and a shell on it through Systems Manager. Nothing for a node without an EC2
 * instance id or a region.
 */
export function awsNextSteps(
  example: AlertNode | undefined,
  place: AwsPlace | undefined,
): string[] {
  const instanceId = awsInstanceId(example?.instance);
  const region = place?.region ?? regionOfZone(example?.zone);
  if (!instanceId || !region) return [];
  const r = shellWord(bodyText(region, 40));
  return [
    `  aws ec2 describe-instance-status --instance-ids ${instanceId} --include-all-instances --region ${r}`,
    `  aws ssm start-session --target ${instanceId} --region ${r}`,
  ];
}

/**
 * The commands to look further, said once per email: about `example` (the first node the email is
 * about) when there is one, else about the cluster. Every kubectl command names its context
 * (`kubectlFor`), so that a copied command never runs against whatever cluster the reader's
 * kubeconfig happens to point at.
 */
export function lookFurther(
  example: AlertNode | undefined,
  namespace: string,
  kube: KubectlCommand,
  aws?: AwsPlace | undefined,
): string[] {
  const ns = shellWord(namespace);
  const { setup, kubectl } = kube;
  if (!example) {
    return [
      'Look further',
      ...setup,
      `  ${kubectl} get --raw '/readyz?verbose'`,
      `  ${kubectl} get leases -n ${ns}`,
      `  ${kubectl} get nodes -o wide`,
    ];
  }
  const name = shellWord(nodeName(example.name));
  return [
    'Look further',
    ...setup,
    `  ${kubectl} get nodes -o wide`,
    `  ${kubectl} describe node ${name}`,
    `  ${kubectl} get lease ${name} -n ${ns} -o yaml`,
    `  ${kubectl} get events -A --field-selector involvedObject.name=${name}`,
    ...awsNextSteps(example, aws),
  ];
}

/** How the email's commands call kubectl: lines to run first, then the command with its context. */
export interface KubectlCommand {
  readonly setup: readonly string[];
  /** `kubectl --context NAME`, NAME quoted for the shell when it needs it. */
  readonly kubectl: string;
}

/**
 * kubectl with the context of `cluster` (the watchdog's name for it), as its settings say:
 * - `eks`: `aws eks update-kubeconfig --name N --region R --alias N` first. The alias names the
 *   context after the EKS cluster; without it the context is named after the cluster ARN (the
 *   `--alias` option of the AWS CLI reference,
 *   https://docs.aws.amazon.com/cli/latest/reference/eks/update-kubeconfig.html), which needs an
 *   account the email may not know.
 * - a kubeconfig context the watchdog uses (its settings, or the CLI's current context): that one.
 * - otherwise (a bearer token, a kubeconfig's current context the settings do not name): the
 *   cluster's name stands for the reader's own context, and a comment line before the commands
 *   says so and how to list one's contexts. The comment is inert when pasted into a shell.
 */
export function kubectlFor(access: KubeAccess | undefined, cluster: string): KubectlCommand {
  const eksName = access?.eks ? bodyText(access.eks.clusterName, 100) : '';
  if (eksName) {
    const name = shellWord(eksName);
    const region = bodyText(access?.eks?.region ?? '', 40);
    const regionFlag = region ? ` --region ${shellWord(region)}` : '';
    return {
      setup: [`  aws eks update-kubeconfig --name ${name}${regionFlag} --alias ${name}`],
      kubectl: `kubectl --context ${name}`,
    };
  }
  const context = bodyText(access?.context ?? '', 253);
  if (context) return { setup: [], kubectl: `kubectl --context ${shellWord(context)}` };
  const stand = bodyText(cluster, 253) || 'CONTEXT';
  return {
    setup: [`  # ${stand}: your kubeconfig context for this cluster (kubectl config get-contexts)`],
    kubectl: `kubectl --context ${shellWord(stand)}`,
  };
}
