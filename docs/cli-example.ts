/**
 * The README's example of the command line, rendered by the real code from a scripted simulated
 * cluster (a node that stopped renewing, one that reports Ready=False, one healthy), on a fixed
 * clock, and docs/CLI.md's example of `-l`, `-o wide` and `-o yaml`. `npm run docs:cli` rewrites
 * both; test/docs.test.ts and test/cli-selector-example.test.ts fail when they are not current.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { SimCluster } from '../sim/cluster.js';
import { runInProcess } from '../testkit/cli-in-process.js';
import { startSimFixture } from '../testkit/sim-fixture.js';
import { replaceSection } from './settings-tables.js';

const T0 = Date.parse('2026-11-29T17:50:00Z');
const NAMES = [
  ['ip-10-0-1-11.eu-west-1.compute.internal', 'eu-west-1a'],
  ['ip-10-0-1-12.eu-west-1.compute.internal', 'eu-west-1a'],
  ['ip-10-0-2-11.eu-west-1.compute.internal', 'eu-west-1b'],
] as const;

async function capture(argv: string[], now: () => number): Promise<{ out: string; err: string }> {
  const { stdoutLines, stderrLines } = await runInProcess(argv, { clock: { now } });
  return { out: stdoutLines.join('\n'), err: stderrLines.join('\n') };
}

/** `lease-watchdog check` and the first lines of `watch` against the scripted cluster. */
export async function renderCliExample(): Promise<string> {
  let now = T0;
  const clock = () => now;
  const cluster = new SimCluster({ now: clock, seed: 42, jitter: false });
  for (const [name, zone] of NAMES) cluster.addNode({ name, zone, createdAt: T0 - 86_400_000 });
  const sim = await startSimFixture(cluster, { prefix: 'lease-watchdog-cli-example' });
  try {
    const { kubeconfig } = sim;
    now += 60_000;
    cluster.stopKubelet(NAMES[0][0]);
    cluster.setReady(NAMES[2][0], 'False', 'KubeletNotReady');
    now += 125_000;
    const check = await capture(['check', '--kubeconfig', kubeconfig], clock);
    const watch = await capture(
      ['watch', '--kubeconfig', kubeconfig, '--checks', '2', '--interval', '0.1'],
      clock,
    );
    const subject = watch.out.split('\n').filter((line) => line.startsWith('Subject: '));
    const changes = watch.out.split('\n').filter((line) => /^\d\d:\d\d:\d\d /.test(line));
    return [
      '```',
      '$ lease-watchdog check',
      check.out,
      check.err,
      '',
      '$ lease-watchdog watch',
      ...changes,
      '==============================================================================',
      ...subject,
      '... (the email that would be sent: see docs/EMAILS.md)',
      '```',
    ].join('\n');
  } finally {
    await sim.close();
  }
}

/** `-l`, `-o wide` and `-o yaml` against two node groups, one node of the gpu group silent. */
export async function renderSelectorExample(): Promise<string> {
  let now = T0;
  const clock = () => now;
  const cluster = new SimCluster({ now: clock, seed: 42, jitter: false });
  const gpu = { 'eks.amazonaws.com/nodegroup': 'gpu', 'eks.amazonaws.com/capacityType': 'SPOT' };
  const createdAt = T0 - 86_400_000;
  cluster.addNode({ name: NAMES[0][0], zone: NAMES[0][1], createdAt });
  cluster.addNode({ name: NAMES[2][0], zone: NAMES[2][1], createdAt });
  cluster.addNode({
    name: 'ip-10-0-3-11.eu-west-1.compute.internal',
    zone: 'eu-west-1c',
    createdAt,
    labels: gpu,
  });
  cluster.addNode({
    name: 'ip-10-0-3-12.eu-west-1.compute.internal',
    zone: 'eu-west-1c',
    createdAt,
    labels: gpu,
  });
  const sim = await startSimFixture(cluster, { prefix: 'lease-watchdog-cli-example' });
  try {
    const { kubeconfig } = sim;
    now += 60_000;
    cluster.stopKubelet('ip-10-0-3-12.eu-west-1.compute.internal');
    now += 125_000;
    const wideArgs = ['-l', 'eks.amazonaws.com/nodegroup=gpu', '-o', 'wide'];
    const wide = await capture(['check', '--kubeconfig', kubeconfig, ...wideArgs], clock);
    const yamlArgs = [
      '-l',
      'kubernetes.io/hostname=ip-10-0-3-11.eu-west-1.compute.internal',
      '-o',
      'yaml',
    ];
    const yaml = await capture(['check', '--kubeconfig', kubeconfig, ...yamlArgs], clock);
    return [
      '```',
      `$ lease-watchdog check ${wideArgs.join(' ')}`,
      wide.out,
      wide.err,
      '',
      `$ lease-watchdog check ${yamlArgs.join(' ')}`,
      yaml.out,
      '```',
    ].join('\n');
  } finally {
    await sim.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const readme = new URL('../README.md', import.meta.url);
  const cli = new URL('./CLI.md', import.meta.url);
  const example = await renderCliExample();
  await writeFile(readme, replaceSection(await readFile(readme, 'utf8'), 'cli-example', example));
  const selector = await renderSelectorExample();
  await writeFile(
    cli,
    replaceSection(await readFile(cli, 'utf8'), 'cli-selector-example', selector),
  );
  console.log('README.md and docs/CLI.md: the command-line examples rewritten');
}
