/**
 * `npm start`: the watchdog against the embedded simulated cluster, with a scripted scenario in
 * which nodes die and recover, showing the notifications that would be emailed. Timings are
 * compressed (4 s leases, 6 s grace period, a check every 2 s) so it ends in about a minute.
 *
 * It runs the real `lease-watchdog watch` code path over HTTPS, and ends with a summary of what
 * the scenario expected and what the watchdog reported; it exits 1 if anything was missed.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { run } from '../cli/main.js';
import { SimCluster } from './cluster.js';
import { startSimServer } from './server.js';

const LEASE_SECONDS = 4;
const GRACE_SECONDS = 6;
const INTERVAL_SECONDS = 2;
const REMINDER_SECONDS = 36;
const DURATION_SECONDS = 64;

const zones = ['eu-west-1a', 'eu-west-1b', 'eu-west-1c'];
const cluster = new SimCluster({ seed: 42 });
const byZone = new Map<string, string[]>();
for (const [z, zone] of zones.entries()) {
  const names: string[] = [];
  for (let i = 1; i <= 4; i++) {
    const name = `ip-10-0-${z + 1}-${10 + i}.eu-west-1.compute.internal`;
    cluster.addNode({
      name,
      zone,
      leaseDurationSeconds: LEASE_SECONDS,
      createdAt: Date.now() - 86_400_000,
    });
    names.push(name);
  }
  byZone.set(zone, names);
}
const [a1, a2] = byZone.get('eu-west-1a') as string[];
const [b1, b2] = byZone.get('eu-west-1b') as string[];
const [c1, c2, c3, c4] = byZone.get('eu-west-1c') as string[];

const server = await startSimServer({ cluster });
const dir = await mkdtemp(join(tmpdir(), 'lease-watchdog-demo-'));
const kubeconfig = join(dir, 'kubeconfig');
await server.writeKubeconfig(kubeconfig);

const color = process.stdout.isTTY && !process.env.NO_COLOR;
const dim = (text: string) => (color ? `\x1b[2m${text}\x1b[0m` : text);
const bold = (text: string) => (color ? `\x1b[1m${text}\x1b[0m` : text);
const started = Date.now();
const elapsed = () => `t+${String(Math.round((Date.now() - started) / 1000)).padStart(2, '0')}s`;

console.log(
  bold('lease-watchdog demo: a simulated cluster of 12 nodes in 3 zones, served over HTTPS\n') +
    dim(
      `Compressed timings: leases of ${LEASE_SECONDS}s (kubelets renew every ${LEASE_SECONDS / 4}s), ` +
        `grace period ${GRACE_SECONDS}s, a check every ${INTERVAL_SECONDS}s, reminders every ${REMINDER_SECONDS}s.\n` +
        'In production: 40 s leases, 50 s grace, a check every minute (or every 10 s in fast mode), reminders every 4 h.\n' +
        `Kubeconfig of the simulated cluster: ${kubeconfig} (try kubectl --kubeconfig ... get nodes while it runs)\n`,
    ),
);

/** The script: what happens to the cluster, and when. */
const script: { at: number; say: string; act: () => void }[] = [
  {
    at: 6,
    say: `${a1} dies (its kubelet stops renewing)`,
    act: () => cluster.stopKubelet(a1 as string),
  },
  {
    at: 12,
    say: `${b1} reports Ready=False, its lease still fresh`,
    act: () => cluster.setReady(b1 as string, 'False', 'KubeletNotReady'),
  },
  { at: 15, say: `${a2} is cordoned for maintenance`, act: () => cluster.cordon(a2 as string) },
  {
    at: 17,
    say: `${a2} (cordoned) shuts down: expected, no alert`,
    act: () => cluster.stopKubelet(a2 as string),
  },
  {
    at: 20,
    say: `${b2} is deleted; its lease is left behind (orphaned, no alert)`,
    act: () => cluster.deleteNode(b2 as string, { keepLease: true }),
  },
  { at: 22, say: `${c1} dies`, act: () => cluster.stopKubelet(c1 as string) },
  { at: 34, say: `${c1} comes back`, act: () => cluster.startKubelet(c1 as string) },
  {
    at: 38,
    say: 'zone eu-west-1c goes dark: 3 of its 4 nodes stop at once',
    act: () => {
      for (const name of [c2, c3, c4]) cluster.stopKubelet(name as string);
    },
  },
  {
    at: 54,
    say: 'zone eu-west-1c comes back',
    act: () => {
      for (const name of [c2, c3, c4]) cluster.startKubelet(name as string);
    },
  },
];
const timers = script.map((step) =>
  setTimeout(() => {
    console.log(bold(`\n── ${elapsed()} scenario: ${step.say}`));
    step.act();
  }, step.at * 1000),
);

const output: string[] = [];
const controller = new AbortController();
process.on('SIGINT', () => controller.abort());
const checks = Math.floor(DURATION_SECONDS / INTERVAL_SECONDS);
await run(
  [
    'watch',
    '--kubeconfig',
    kubeconfig,
    '--grace-period',
    String(GRACE_SECONDS),
    '--startup-grace',
    String(GRACE_SECONDS * 2),
    '--interval',
    String(INTERVAL_SECONDS),
    '--checks',
    String(checks),
    '--reminder-interval',
    String(REMINDER_SECONDS),
  ],
  {
    stdout: (text) => {
      output.push(text);
      console.log(text);
    },
    stderr: (text) => {
      output.push(text);
      console.error(text);
    },
    env: process.env,
    now: Date.now,
    signal: controller.signal,
  },
);
for (const timer of timers) clearTimeout(timer);
await server.close();
await rm(dir, { recursive: true, force: true });

const text = output.join('\n');
const literal = (name: string) => name.replace(/\./g, '\\.');
const expectations: { what: string; seen: boolean }[] = [
  { what: `FIRING email when ${a1} died`, seen: /Subject: \[[^\]]+\] FIRING: /.test(text) },
  {
    what: `${a1} judged expired`,
    // A look may find a silence before one can confirm it (healthy → suspect → expired).
    seen: new RegExp(`${literal(a1 as string)}\\s+((healthy|suspect) → )?expired`).test(text),
  },
  {
    what: `${b1} judged not-ready`,
    seen: new RegExp(`${literal(b1 as string)}\\s+healthy → not-ready`).test(text),
  },
  {
    what: `${a2} suppressed (cordoned), not paged`,
    seen: new RegExp(`${literal(a2 as string)}\\s+(healthy|suspect) → suppressed`).test(text),
  },
  {
    what: `${b2} an orphaned lease, not paged`,
    seen: new RegExp(`${literal(b2 as string)}\\s+healthy → orphaned-lease`).test(text),
  },
  {
    what: `RESOLVED email when ${c1} came back`,
    seen: /Subject: \[[^\]]+\] RESOLVED: /.test(text),
  },
  {
    what: 'one STORM email for zone eu-west-1c',
    seen: (text.match(/Subject: \[[^\]]+\] STORM: .*eu-west-1c/g) ?? []).length === 1,
  },
  { what: `REMINDER about ${a1}, still down`, seen: /Subject: \[[^\]]+\] REMINDER: /.test(text) },
  {
    what: `no alert for ${a2} (cordoned) or ${b2} (orphaned lease)`,
    seen: !new RegExp(`! (${literal(a2 as string)}|${literal(b2 as string)}) `).test(text),
  },
];
const emails = text.match(/^Subject: .*$/gm) ?? [];
console.log(bold(`\n── Summary after ${elapsed()}: ${checks} checks, ${emails.length} emails`));
for (const subject of emails) console.log(`   ${subject}`);
console.log('');
for (const e of expectations) console.log(`   ${e.seen ? 'ok     ' : 'MISSING'}  ${e.what}`);
const missing = expectations.filter((e) => !e.seen);
if (controller.signal.aborted) {
  console.log('\nInterrupted.');
} else if (missing.length > 0) {
  console.error(`\nlease-watchdog demo: ${missing.length} expected outcome(s) missing`);
  process.exitCode = 1;
} else {
  console.log('\nEverything the scenario set up was found, and nothing else was paged.');
}
