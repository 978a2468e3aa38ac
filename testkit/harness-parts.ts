/**
 * The world outside the watchdog that an end-to-end harness starts (testkit/watchdog-harness.ts):
 * a local Secrets Manager holding the clusters' bearer tokens, dynalite with the state table, a
 * local SNS endpoint, and each cluster of the options behind its API server (a simulated cluster
 * over HTTPS, maybe behind a hostile front; a scripted server; a port nothing listens on; an EKS
 * cluster), with the settings that name them. Every part runs on the harness's fake clock.
 */
import { parseWatchdogSettings, type WatchdogSettings } from '../lambda/settings/index.js';
import { SimCluster } from '../sim/cluster.js';
import { startSimServer } from '../sim/server.js';
import { startConnectProxy } from './connect-proxy.js';
import { type LocalDynamoDb, startLocalDynamoDb } from './dynalite.js';
import type { FakeClock } from './fake-clock.js';
import type { Closer, HarnessOptions, SimClusterSpec, SimTarget } from './harness-options.js';
import { startHostileFront } from './hostile-front.js';
import { type OpsgenieServer, startOpsgenieServer } from './opsgenie-server.js';
import { type PagerDutyServer, startPagerDutyServer } from './pagerduty-server.js';
import { closedPort } from './ports.js';
import { type SecretsServer, startSecretsServer } from './secrets-server.js';
import { type SnsServer, startSnsServer } from './sns-server.js';

/** The parts a harness's containers share. */
export interface OutsideWorld {
  readonly secrets: SecretsServer;
  readonly dynamo: LocalDynamoDb;
  readonly sns: SnsServer;
  readonly tableName: string;
  readonly targets: ReadonlyMap<string, SimTarget>;
  readonly settings: WatchdogSettings;
  /** Where the EC2 evidence calls go: the options' endpoint, else a closed port. */
  readonly ec2Endpoint: string;
  /** The PagerDuty stand-in, with the `pagerDuty` option (its routing key in `secrets`). */
  readonly pagerDuty?: PagerDutyServer;
  /** The Opsgenie stand-in, with the `opsgenie` option (its API key in `secrets`). */
  readonly opsgenie?: OpsgenieServer;
}

/** The routing key the PagerDuty stand-in expects, and the secret that holds it. */
export const PAGERDUTY_ROUTING_KEY = 'R0UT1NGKEY0123456789abcdefABCDEF';
export const PAGERDUTY_SECRET_ID = 'lease-watchdog/pagerduty-routing-key';

/** The PagerDuty stand-in and its setting, when asked for (its key kept in `secrets`). */
async function pagerDutyPart(
  options: HarnessOptions,
  world: { secrets: SecretsServer; now: () => number },
  closers: Closer[],
) {
  const { secrets } = world;
  if (!options.pagerDuty) return { settings: {} };
  const server = await startPagerDutyServer(PAGERDUTY_ROUTING_KEY, world.now);
  closers.push(() => server.close());
  secrets.put(PAGERDUTY_SECRET_ID, PAGERDUTY_ROUTING_KEY);
  return { server, settings: { pagerDuty: { routingKeySecret: PAGERDUTY_SECRET_ID } } };
}

/** The API key the Opsgenie stand-in expects, and the secret that holds it. */
export const OPSGENIE_API_KEY = 'eb243592-faa2-4ba2-a551-0pSg3n1eK3Y0';
export const OPSGENIE_SECRET_ID = 'lease-watchdog/opsgenie-api-key';

/** The Opsgenie stand-in and its setting, when asked for (its key kept in `secrets`). */
async function opsgeniePart(options: HarnessOptions, secrets: SecretsServer, closers: Closer[]) {
  if (!options.opsgenie) return { settings: {} };
  const server = await startOpsgenieServer(OPSGENIE_API_KEY);
  closers.push(() => server.close());
  secrets.put(OPSGENIE_SECRET_ID, OPSGENIE_API_KEY);
  return { server, settings: { opsgenie: { apiKeySecret: OPSGENIE_SECRET_ID, region: 'eu' } } };
}

let tables = 0;

/** Starts the outside world of `options`; `closers` gets what stops each part. */
export async function startOutsideWorld(
  clock: FakeClock,
  options: HarnessOptions,
  closers: Closer[],
): Promise<OutsideWorld> {
  const secrets = await startSecretsServer();
  closers.push(() => secrets.close());
  const dynamo = await startLocalDynamoDb(options.dynamoDb);
  closers.push(() => dynamo.stop());
  const sns = await startSnsServer({ now: clock.now });
  closers.push(() => sns.close());
  const tableName = `lease-watchdog-e2e-${++tables}`;
  await dynamo.createStateTable(tableName);

  const targets = new Map<string, SimTarget>();
  const clusterSettings: unknown[] = [];
  for (const [name, spec] of Object.entries(options.clusters ?? { prod: {} })) {
    const target = await startSimTarget(name, spec, clock, closers);
    secrets.put(target.tokenSecretId, target.server.token);
    targets.set(name, target);
    const { url, caPem } = target.front ?? target.server;
    const proxyUrl = target.proxy?.url ?? (typeof spec.proxy === 'string' ? spec.proxy : undefined);
    const auth = proxyUrl
      ? proxiedCluster(name, target.server.kubeconfig(), proxyUrl, secrets)
      : tokenCluster(name, url, caPem);
    clusterSettings.push({ ...auth, ...spec.settings });
  }
  clusterSettings.push(...(await otherClusters(options, secrets)));
  const pagerDuty = await pagerDutyPart(options, { secrets, now: clock.now }, closers);
  const opsgenie = await opsgeniePart(options, secrets, closers);
  const settings = parseWatchdogSettings({
    requestTimeoutSeconds: options.requestTimeoutSeconds ?? 2,
    ...pagerDuty.settings,
    ...opsgenie.settings,
    ...options.settings,
    clusters: clusterSettings,
  });
  const ec2Endpoint = options.ec2Endpoint ?? `http://127.0.0.1:${await closedPort()}`;
  const world = { secrets, dynamo, sns, tableName, targets, settings, ec2Endpoint };
  return {
    ...world,
    ...(pagerDuty.server ? { pagerDuty: pagerDuty.server } : {}),
    ...(opsgenie.server ? { opsgenie: opsgenie.server } : {}),
  };
}

/** A simulated cluster behind its HTTPS API server (and a hostile front, a proxy, when asked). */
async function startSimTarget(
  name: string,
  spec: SimClusterSpec,
  clock: FakeClock,
  closers: Closer[],
): Promise<SimTarget> {
  const sim = new SimCluster({ now: clock.now, seed: spec.seed ?? 11 });
  const nodes = sim.addNodes(spec.nodes ?? 6, {
    zones: spec.zones ?? ['eu-west-1a', 'eu-west-1b', 'eu-west-1c'],
  });
  const server = await startSimServer({ cluster: sim });
  closers.push(() => server.close());
  const front = spec.front ? await startHostileFront(server.url, server.caPem) : undefined;
  if (front) closers.push(() => front.close());
  const proxy = spec.proxy === true ? await startConnectProxy() : undefined;
  if (proxy) closers.push(() => proxy.close());
  return {
    name,
    sim,
    server,
    tokenSecretId: `${name}-token`,
    nodes,
    ...(front ? { front } : {}),
    ...(proxy ? { proxy } : {}),
  };
}

/** A cluster's settings in token mode: its server, the CA it trusts, its token's secret. */
function tokenCluster(name: string, server: string, caPem?: string): Record<string, unknown> {
  return {
    name,
    auth: {
      mode: 'token',
      server,
      ...(caPem === undefined ? {} : { caData: Buffer.from(caPem).toString('base64') }),
      tokenSecretId: `${name}-token`,
    },
  };
}

/** A cluster's settings in kubeconfig mode: `kubeconfig` with a proxy-url, kept in a secret. */
function proxiedCluster(
  name: string,
  kubeconfig: string,
  proxyUrl: string,
  secrets: SecretsServer,
): Record<string, unknown> {
  const secretId = `${name}-kubeconfig`;
  secrets.put(secretId, withProxyUrl(kubeconfig, proxyUrl));
  return { name, auth: { mode: 'kubeconfig', secretId } };
}

/** The kubeconfig with `proxy-url` set on its cluster (the line after its server's). */
export function withProxyUrl(kubeconfig: string, proxyUrl: string): string {
  return kubeconfig.replace(/^( +server: .*)$/m, `$1\n    proxy-url: ${JSON.stringify(proxyUrl)}`);
}

/** The settings of the scripted, unreachable and EKS clusters of `options`, their tokens stored. */
async function otherClusters(options: HarnessOptions, secrets: SecretsServer): Promise<unknown[]> {
  const clusters: unknown[] = [];
  for (const [name, scripted] of Object.entries(options.scriptedClusters ?? {})) {
    secrets.put(`${name}-token`, scripted.token);
    clusters.push(tokenCluster(name, scripted.url, scripted.caPem));
  }
  for (const name of options.unreachableClusters ?? []) {
    secrets.put(`${name}-token`, 'no-one-listens');
    clusters.push(tokenCluster(name, `https://127.0.0.1:${await closedPort()}`));
  }
  for (const [name, auth] of Object.entries(options.eksClusters ?? {})) {
    clusters.push({ name, auth: { mode: 'eks', ...auth } });
  }
  return clusters;
}
