/**
 * One email, one reading (issue 19 §4), through the real handler (testkit/watchdog-harness.ts):
 * every age said about one node's silence is one number from one clock; every kubectl command
 * names its context, whatever the cluster's auth mode; "What happens next in Kubernetes" is said
 * once per incident, in its FIRING.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { deliveredAs } from '../testkit/sns-server.js';
import { type Harness, startWatchdogHarness, summary } from '../testkit/watchdog-harness.js';

/** A kubectl age (`formatAge`: `45s`, `3m20s`, `31m`, `3h1m`, `2d1h`) in seconds. */
function ageSeconds(age: string): number {
  const units: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400, y: 31_536_000 };
  let total = 0;
  for (const [, n, unit] of age.matchAll(/(\d+)([smhdy])/g)) {
    total += Number(n) * (units[unit as string] ?? Number.NaN);
  }
  return total;
}

/** The lines of the email's block about `node` (its name, then its indented labels). */
function nodeBlock(email: string, node: string): string[] {
  const lines = email.split('\n');
  const start = lines.indexOf(node);
  assert.ok(start >= 0, `a block about ${node}:\n${email}`);
  const end = lines.findIndex((line, i) => i > start && !line.startsWith('  '));
  return lines.slice(start, end < 0 ? undefined : end);
}

/** Every age the block says: "(76s ago)", "for 76s", "(31m)". */
function agesIn(block: readonly string[]): string[] {
  return block.flatMap((line) =>
    [...line.matchAll(/\((\w+) ago\)|\bfor (\d\w*)/g)].map((m) => (m[1] ?? m[2]) as string),
  );
}

describe('lambda e2e: one email, one reading of one silence', () => {
  let h: Harness;
  let victim: string;
  const emails = (kind: string) => h.messages(kind).map((m) => deliveredAs(m, 'email')) as string[];
  before(async () => {
    h = await startWatchdogHarness({
      clusters: { prod: { nodes: 6 } },
      settings: { reminderIntervalSeconds: 1800 },
    });
    victim = h.target('prod').nodes[1] as string;
    await h.run();
    // The kubelet dies; the watchdog's next look comes 31 minutes later (a paused schedule).
    h.target('prod').sim.stopKubelet(victim);
    h.clock.advance(31 * 60_000);
    for (let i = 0; i < 3 && h.messages('FIRING').length === 0; i++) await h.run();
  });
  after(() => h?.close());

  it('a node silent 31 minutes: every age about it in the FIRING says 31m', () => {
    const [firing] = emails('FIRING');
    assert.ok(firing, `a FIRING: ${summary(h.messages())}`);
    const block = nodeBlock(firing, victim);
    const ages = agesIn(block);
    assert.ok(
      ages.length >= 3,
      `last renewal, reason and down since each give an age: ${block.join('\n')}`,
    );
    assert.deepEqual(new Set(ages).size, 1, `one number for one silence:\n${block.join('\n')}`);
    const seconds = ageSeconds(ages[0] as string);
    assert.ok(seconds >= 30 * 60 && seconds <= 32 * 60, `~31 minutes: ${block.join('\n')}`);
  });

  it('every kubectl command names a context, for a token-mode cluster too', () => {
    const [firing] = emails('FIRING');
    assert.ok(firing);
    const lines = firing.split('\n').filter((line) => !line.trim().startsWith('#'));
    const commands = lines.filter((line) => /\bkubectl /.test(line));
    assert.ok(commands.length >= 4, firing);
    for (const line of commands) assert.match(line, /\bkubectl --context prod /, line);
    assert.match(
      firing,
      /^ {2}# prod: your kubeconfig context for this cluster \(kubectl config get-contexts\)$/m,
      'says which context the commands mean and how to find it',
    );
  });

  it('"What happens next" once per incident: in the FIRING, a one-line pointer after', async () => {
    const remind = h.clock.now() + 1_800_000;
    while (h.clock.now() < remind && h.messages('REMINDER').length === 0) await h.tick();
    h.target('prod').sim.startKubelet(victim);
    for (let i = 0; i < 3 && h.messages('RESOLVED').length === 0; i++) await h.tick();
    const [firing] = emails('FIRING');
    const [reminder] = emails('REMINDER');
    const [resolved] = emails('RESOLVED');
    assert.ok(firing && reminder && resolved, summary(h.messages()));
    assert.equal(firing.match(/^What happens next in Kubernetes$/gm)?.length, 1, firing);
    for (const email of [reminder, resolved]) {
      assert.doesNotMatch(email, /^What happens next in Kubernetes$/m, email);
      const pointers = email.split('\n').filter((line) => /what happens next/i.test(line));
      assert.ok(pointers.length <= 1, `at most a one-line pointer:\n${email}`);
      assert.ok(email.split('\n').length < firing.split('\n').length, email);
    }
    assert.equal(new Set(agesIn(nodeBlock(reminder, victim))).size, 1, reminder);
  });

  it('a death seen by looks a minute apart: the renewal, the reason and down since agree', async () => {
    const second = h.target('prod').nodes[3] as string;
    h.target('prod').sim.stopKubelet(second);
    const paged = () => emails('FIRING').find((email) => email.includes(`\n${second}\n`));
    for (let i = 0; i < 4 && !paged(); i++) await h.tick();
    const email = paged();
    assert.ok(email, summary(h.messages()));
    const ages = agesIn(nodeBlock(email, second));
    assert.equal(ages.length, 3, email);
    assert.equal(new Set(ages).size, 1, `one number for one silence:\n${email}`);
  });
});
