/**
 * What identifies a cluster for `watch --state-file` and `silence` (cli/cluster-key.ts): its CA
 * and its URL, loopback names as one. One cluster reached as `localhost` and as `127.0.0.1` is
 * one cluster; another cluster reached at the same URL (a port-forward), with another CA, is
 * another; a state file an earlier version keyed by the URL is still read. In process against
 * the simulated cluster over HTTPS, on a fake clock.
 */
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { SimCluster } from '../sim/cluster.js';
import { generateSimPki } from '../sim/pki.js';
import { runInProcess } from '../testkit/cli-in-process.js';
import { FakeClock } from '../testkit/fake-clock.js';
import { type SimFixture, startSimFixture, stopKubeletLongAgo } from '../testkit/sim-fixture.js';

describe('watch and silence: which cluster a state file holds', () => {
  const clock = new FakeClock();
  let sim: SimFixture;
  let stateFile: string;
  let dead: string;
  let url: string;
  /** The same cluster, its server written `https://localhost:<port>`. */
  let viaLocalhost: string;
  /** Another cluster (another CA) reached at the same URL. */
  let another: string;
  /** The state file once the dead node's FIRING was sent. */
  let firedState: string;

  before(async () => {
    const cluster = new SimCluster({ seed: 5, now: clock.now });
    const names = cluster.addNodes(3, { zones: ['eu-west-1a'] });
    sim = await startSimFixture(cluster, { prefix: 'lease-watchdog-cluster-key' });
    stateFile = join(sim.dir, 'state.json');
    dead = names[1] as string;
    stopKubeletLongAgo(cluster, dead, clock.now());
    url = sim.server.url;
    const text = await readFile(sim.kubeconfig, 'utf8');
    viaLocalhost = join(sim.dir, 'localhost-kubeconfig');
    await writeFile(viaLocalhost, text.replace(url, url.replace('127.0.0.1', 'localhost')));
    const other = await generateSimPki();
    const ownCa = Buffer.from(sim.server.caPem).toString('base64');
    another = join(sim.dir, 'another-kubeconfig');
    await writeFile(another, text.replace(ownCa, Buffer.from(other.caPem).toString('base64')));
    assert.notEqual(await readFile(another, 'utf8'), text, 'the CA replaced');
  });
  after(() => sim.close());

  const runCli = (args: string[]) => runInProcess(args, { clock });
  const watch = (file = stateFile) =>
    runCli(['watch', '--checks', '1', '--state-file', file, '--kubeconfig', sim.kubeconfig]);
  const add = (kubeconfig: string) =>
    runCli([
      ...['silence', 'add', '--node', dead, '--for', '1h', '--comment', 'reboot'],
      ...['--allow-empty', '--state-file', stateFile, '--kubeconfig', kubeconfig],
    ]);

  it('one cluster reached as localhost and as 127.0.0.1 is one: a silence added through either applies', async () => {
    assert.equal((await watch()).code, 1, 'the dead node fires; the state file now exists');
    firedState = await readFile(stateFile, 'utf8');
    const added = await add(viaLocalhost);
    assert.equal(added.code, 0, added.stderr);
    const silenced = await watch();
    assert.equal(silenced.code, 0, `suppressed: ${silenced.stdout}${silenced.stderr}`);
    assert.match(silenced.stdout, /suppressed +\(silenced by s-[0-9a-f]{6}/);
  });

  it('another cluster (another CA) at the same URL is another: its silence is refused, not joined', async () => {
    const added = await add(another);
    assert.equal(added.code, 2, added.stdout);
    assert.match(added.stderr, /has no cluster "https:\/\/127\.0\.0\.1:\d+#ca=[0-9a-f]{16}" /);
  });

  it('a state file an earlier version keyed by the URL is read, and saved under the key', async () => {
    const document = JSON.parse(firedState) as {
      clusters: Record<string, unknown>;
    };
    const [key, ...none] = Object.keys(document.clusters);
    assert.match(key ?? '', /^https:\/\/127\.0\.0\.1:\d+#ca=[0-9a-f]{16}$/);
    assert.deepEqual(none, []);
    const earlier = join(sim.dir, 'earlier-state.json');
    const clusters = { [url]: document.clusters[key as string] };
    await writeFile(earlier, JSON.stringify({ ...document, clusters }));
    const carried = await watch(earlier);
    // The node still alerts; its FIRING, sent already in the state carried over, is not sent again.
    assert.equal(carried.code, 1, carried.stderr);
    assert.doesNotMatch(carried.stdout, /FIRING/);
    const after = JSON.parse(await readFile(earlier, 'utf8')) as typeof document;
    assert.deepEqual(Object.keys(after.clusters).sort(), [key, url].sort());
  });
});
