/**
 * `npm run sim`: starts a simulated cluster on its own, writes its kubeconfig, and runs until
 * Ctrl-C, so that anyone can point kubectl or `lease-watchdog check` at it.
 *
 *   npm run sim -- --nodes 50 --zones eu-west-1a,eu-west-1b --port 6443 --kubeconfig .sim/kubeconfig
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { SimCluster } from './cluster.js';
import { KUBELET_ANNOTATION } from './node-writes.js';
import { startSimServer } from './server.js';

const USAGE =
  'usage: npm run sim -- [--nodes N] [--zones a,b,c] [--port PORT] [--kubeconfig PATH] [--lease-duration S]';

function fail(message: string): never {
  process.stderr.write(`sim: ${message}\n${USAGE}\n`);
  process.exit(2);
}

function positiveInt(raw: string, flag: string, allowZero = false): number {
  const n = Number(raw);
  if (!Number.isInteger(n) || n < (allowZero ? 0 : 1)) {
    fail(`--${flag} must be ${allowZero ? 'a non-negative' : 'a positive'} integer, got "${raw}"`);
  }
  return n;
}

interface SimOptions {
  nodes: number;
  port: number;
  leaseDurationSeconds: number;
  zones: string[];
  kubeconfigPath: string;
}

/** The command line, checked: the options, or undefined when --help was asked (and printed). */
function parseOptions(): SimOptions | undefined {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      options: {
        nodes: { type: 'string', default: '12' },
        zones: { type: 'string', default: 'eu-west-1a,eu-west-1b,eu-west-1c' },
        port: { type: 'string', default: '0' },
        kubeconfig: { type: 'string', default: '.sim/kubeconfig' },
        'lease-duration': { type: 'string', default: '40' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
    }));
  } catch (err) {
    fail(err instanceof Error ? err.message : String(err));
  }
  if (values.help) {
    process.stdout.write(`${USAGE}\n`);
    return undefined;
  }
  const nodes = positiveInt(String(values.nodes), 'nodes', true);
  const port = positiveInt(String(values.port), 'port', true);
  const leaseDurationSeconds = positiveInt(String(values['lease-duration']), 'lease-duration');
  const zones = String(values.zones)
    .split(',')
    .map((z) => z.trim())
    .filter((z) => z !== '');
  if (zones.length === 0) fail('--zones must name at least one zone');
  return {
    nodes,
    port,
    leaseDurationSeconds,
    zones,
    kubeconfigPath: resolve(String(values.kubeconfig)),
  };
}

/** What the running sim prints: where it is, and what to try on it. */
function banner(
  o: SimOptions,
  url: string,
  addMs: number,
  firstNode: string | undefined,
): string[] {
  const { kubeconfigPath } = o;
  return [
    `Simulated cluster: ${o.nodes} nodes over ${o.zones.join(', ')} (created in ${addMs} ms), lease duration ${o.leaseDurationSeconds}s`,
    `API server: ${url}`,
    `Kubeconfig: ${kubeconfigPath}`,
    '',
    'Try:',
    `  kubectl --kubeconfig ${kubeconfigPath} get nodes`,
    `  kubectl --kubeconfig ${kubeconfigPath} get leases -n kube-node-lease`,
    `  npx lease-watchdog check --kubeconfig ${kubeconfigPath}`,
    '',
    "Stop a node's kubelet (its lease goes silent), start it again, or keep it renewing but NotReady:",
    ...['stopped', 'running', 'not-ready'].map(
      (state) =>
        `  kubectl --kubeconfig ${kubeconfigPath} annotate --overwrite node ${firstNode ?? '<node>'} ${KUBELET_ANNOTATION}=${state}`,
    ),
    '',
    'Press Ctrl-C to stop.',
  ];
}

async function main(): Promise<void> {
  const options = parseOptions();
  if (!options) return;
  const { nodes, zones, leaseDurationSeconds, port, kubeconfigPath } = options;
  const cluster = new SimCluster({ seed: Date.now() % 100_000 });
  const started = Date.now();
  const names = cluster.addNodes(nodes, { zones, leaseDurationSeconds });
  const addMs = Date.now() - started;
  const server = await startSimServer({ cluster, port });
  await server.writeKubeconfig(kubeconfigPath);
  process.stdout.write(`${banner(options, server.url, addMs, names[0]).join('\n')}\n`);

  const stop = async () => {
    process.stdout.write('\nStopping the simulated cluster.\n');
    await server.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void stop());
  process.once('SIGTERM', () => void stop());
}

main().catch((err: unknown) => {
  process.stderr.write(`sim: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(2);
});
