/**
 * The fault matrix's discovery rows (reliability-matrix.ts): what discovery finds changing under a
 * watched name, through the real handler against the scripted EKS endpoint (eks-server.ts) and
 * discovered clusters that are simulated clusters over HTTPS. The letters are the nodes of the
 * discovered cluster `zeta` (its first node `a`); the listed `prod` is checked once, healthy.
 */
import { SimCluster } from '../sim/cluster.js';
import { type SimServer, startSimServer } from '../sim/server.js';
import { type EksServer, startEksServer } from './eks-server.js';
import type { Scenario, ScenarioContext } from './reliability-scenario.js';

const ON = { 'lease-watchdog': 'on' };
const APPEARED = 'NOTICE([zeta] NOTICE: discovered, watched from now on)';

/** What a row's run has besides its context: the EKS endpoint, and a cluster maker. */
interface DiscoveryWorld {
  readonly eks: EksServer;
  /** A simulated cluster of 4 nodes that takes EKS tokens: where EKS says it is, and its nodes. */
  cluster(seed: number): Promise<{ sim: SimCluster; at: object; nodes: string[] }>;
}

/** A row whose harness discovers at the EKS stand-in (grantAccess on), its run given the world. */
function discoveryRow(
  row: Omit<Scenario, 'run' | 'prepare'>,
  run: (ctx: ScenarioContext, world: DiscoveryWorld) => Promise<void>,
): Scenario {
  let eks: EksServer | undefined;
  const apis: SimServer[] = [];
  return {
    ...row,
    async prepare() {
      eks = await startEksServer();
      return {
        harness: {
          settings: { discover: { regions: ['eu-west-1'], tags: ON, grantAccess: true } },
          eksEndpoint: eks.url,
          eksMaxAttempts: 1,
          functionRoleArn: 'arn:aws:iam::123456789012:role/lease-watchdog-fn',
        },
        async close() {
          await Promise.all([eks?.close(), ...apis.splice(0).map((api) => api.close())]);
        },
      };
    },
    async run(ctx) {
      const cluster = async (seed: number) => {
        const sim = new SimCluster({ now: ctx.h.clock.now, seed });
        sim.addNodes(4, { zones: ['eu-west-1a', 'eu-west-1b'] });
        const api = await startSimServer({
          cluster: sim,
          acceptsToken: (t) => t.startsWith('k8s-aws-v1.'),
        });
        apis.push(api);
        const caData = Buffer.from(api.caPem).toString('base64');
        const at = { endpoint: api.url, caData, region: 'eu-west-1' };
        return { sim, at, nodes: [...sim.sortedNodeNames()] };
      };
      await run(ctx, { eks: eks as EksServer, cluster });
    },
  };
}

/** `n` checks of the discovered `zeta`, one schedule interval apart. */
async function checkZeta(ctx: ScenarioContext, n: number): Promise<void> {
  for (let i = 0; i < n; i++) await ctx.tick({ cluster: 'zeta' });
}

export const DISCOVERY_FAULTS: readonly Scenario[] = [
  discoveryRow(
    {
      name: 'a name tag claims a watched cluster',
      inject:
        'discovered zeta loses node a; then a cluster found before it in ListClusters, all its nodes up, is tagged lease-watchdog/name=zeta',
      truth: [
        APPEARED,
        'FIRING(a)',
        'NOTICE([zeta] NOTICE: another discovered cluster has this name, not watched)',
      ],
    },
    async (ctx, { eks, cluster }) => {
      const zeta = await cluster(41);
      ctx.nodesAre(zeta.nodes);
      eks.put('zeta', { ...zeta.at, tags: ON });
      await ctx.tick({ discover: true });
      zeta.sim.stopKubelet(ctx.node('a'));
      await checkZeta(ctx, 3);
      const other = await cluster(42);
      eks.put('aaa-other', { ...other.at, tags: { ...ON, 'lease-watchdog/name': 'zeta' } });
      await ctx.tick({ discover: true });
      await checkZeta(ctx, 3);
      ctx.note('zeta stays the cluster it was: a stays down, not "deleted" by the other\'s nodes');
    },
  ),
  discoveryRow(
    {
      name: 'a discovered cluster deleted and created again under its name',
      inject:
        'zeta loses node a; between two discovery runs zeta is deleted (its access entry with it) and created again, new nodes, a new creation time',
      truth: [APPEARED, 'FIRING(a)', APPEARED],
    },
    async (ctx, { eks, cluster }) => {
      const old = await cluster(51);
      ctx.nodesAre(old.nodes);
      eks.put('zeta', { ...old.at, tags: ON, createdAt: 1_767_225_600 });
      await ctx.tick({ discover: true });
      old.sim.stopKubelet(ctx.node('a'));
      await checkZeta(ctx, 3);
      eks.remove('zeta');
      const reborn = await cluster(52);
      eks.put('zeta', { ...reborn.at, tags: ON, createdAt: 1_767_312_000 });
      await ctx.tick({ discover: true });
      await checkZeta(ctx, 2);
      ctx.note(`access entries after: ${eks.accessEntries.size} (granted again)`);
    },
  ),
  discoveryRow(
    {
      name: 'a deletion found by a check and a discovery run at once',
      inject:
        "zeta's API stops answering, zeta is deleted; a check asks EKS, which answers once a discovery run in another container has found it gone",
      truth: [APPEARED, 'NOTICE([zeta] NOTICE: deleted, no longer watched)'],
    },
    async (ctx, { eks, cluster }) => {
      const zeta = await cluster(61);
      ctx.nodesAre(zeta.nodes);
      eks.put('zeta', { ...zeta.at, endpoint: 'https://127.0.0.1:1', tags: ON });
      await ctx.tick({ discover: true });
      await checkZeta(ctx, 1); // unreadable, within the grace period
      eks.remove('zeta');
      const held = eks.hold('zeta');
      const check = ctx.tick({ cluster: 'zeta' });
      await held.reached;
      const other = ctx.h.container();
      await other.invoke({ discover: true }).finally(() => other.destroy());
      held.release();
      await check;
      await ctx.tick({ discover: true });
      ctx.note('EKS answered the check after the discovery run: its claim lost, it said nothing');
    },
  ),
  discoveryRow(
    {
      name: 'a tag excludes every node of a watched cluster',
      inject:
        'zeta is tagged lease-watchdog/exclude-selector=kubernetes.io/hostname (every node has it), then loses node a',
      truth: [APPEARED, 'NOTICE([zeta] NOTICE: a tag was ignored)', 'FIRING(a)'],
    },
    async (ctx, { eks, cluster }) => {
      const zeta = await cluster(71);
      ctx.nodesAre(zeta.nodes);
      eks.put('zeta', { ...zeta.at, tags: ON });
      await ctx.tick({ discover: true });
      const tags = { ...ON, 'lease-watchdog/exclude-selector': 'kubernetes.io/hostname' };
      eks.put('zeta', { ...zeta.at, tags });
      await ctx.tick({ discover: true });
      zeta.sim.stopKubelet(ctx.node('a'));
      await checkZeta(ctx, 3);
      ctx.note('the tag refused: no selector, its default, holds');
    },
  ),
];
