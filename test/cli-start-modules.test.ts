/**
 * The command loads only what it needs (issue 20, §1: `check` took 3.5 s against kubectl's 0.3 s,
 * most of it loading client-node's KubeConfig with its generated models, and the AWS SDK that
 * only `watch --sns-topic-arn` and `silence --table` use). Start time is the process's, so each
 * command runs as a process, and a resolve hook (node:module registerHooks, given by --import)
 * writes down every module it loads: the test asserts on which, never on how long.
 *
 * The command ships bundled (infra/cli-bundle.ts): it loads files of dist/cli-bundle/ alone, and
 * esbuild's metafile says which sources each of them holds; those are the modules it loaded.
 */

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { SimCluster } from '../sim/cluster.js';
import { runInProcess } from '../testkit/cli-in-process.js';
import { BIN, NODE, ROOT } from '../testkit/cli-process.js';
import { type SimFixture, startSimFixture } from '../testkit/sim-fixture.js';

/**
 * Appends the URL of every module resolved to the file $LW_LOADED names, and at exit Node's own
 * modules loaded (process.moduleLoadList: its internal undici is one).
 */
const HOOK = `data:text/javascript,${encodeURIComponent(`
import { registerHooks } from 'node:module';
import { appendFileSync } from 'node:fs';
registerHooks({
  resolve(specifier, context, next) {
    const resolved = next(specifier, context);
    appendFileSync(process.env.LW_LOADED, resolved.url + '\\n');
    return resolved;
  },
});
process.on('exit', () => appendFileSync(process.env.LW_LOADED, process.moduleLoadList.join('\\n')));`)}`;

/** The sources each file of the bundle holds, as file URLs (esbuild's metafile). */
async function bundleInputs(): Promise<Map<string, string[]>> {
  const meta = JSON.parse(await readFile(join(ROOT, 'dist', 'cli-bundle.meta.json'), 'utf8')) as {
    outputs: Record<string, { inputs: Record<string, unknown> }>;
  };
  return new Map(
    Object.entries(meta.outputs).map(([output, { inputs }]) => [
      pathToFileURL(join(ROOT, output)).href,
      // Not esbuild's stand-ins (`builtin:node:fs`, infra/cli-bundle.ts): they are no source.
      Object.keys(inputs)
        .filter((input) => !/^[\w-]+:/.test(input))
        .map((input) => pathToFileURL(join(ROOT, input)).href),
    ]),
  );
}

/** What a command that does not use them must not load (each costs from a few ms to 3 s). */
const HEAVY: readonly [string, RegExp][] = [
  ["client-node's KubeConfig", /@kubernetes\/client-node\/dist\/config\.js$/],
  ["client-node's generated models", /@kubernetes\/client-node\/dist\/gen\//],
  ['the AWS SDK', /\/node_modules\/@aws-sdk\//],
  // The settings' schemas: only a deployment file needs them (`config validate`, the stack).
  ['zod', /\/node_modules\/zod\//],
  ['undici', /\/node_modules\/undici\//],
  // An ESM import of node:http reads its WebSocket getters, which load it (~130 ms of CPU).
  ["Node's internal undici", /^NativeModule internal\/deps\/undici/],
  // Only a compressed answer needs it: a small cluster's never is (the sim's, kube-apiserver's).
  ['node:zlib', /^NativeModule zlib$/],
  // Only a kubeconfig kubectl did not write needs it: a file of its own (infra/cli-bundle.ts).
  ['js-yaml', /\/dist\/cli-bundle\/js-yaml\.cjs$|\/node_modules\/js-yaml\//],
];

/** The heavy modules the command `args` loads (and its exit code, to show it ran). */
async function heavyLoadedBy(
  dir: string,
  args: string[],
): Promise<{ code: number; heavy: string[] }> {
  const { code, loaded } = await loadedBy(dir, args);
  const heavy = HEAVY.filter(([, re]) => loaded.some((url) => re.test(url))).map(([name]) => name);
  return { code, heavy };
}

/**
 * Every module the command `args` loads: URLs, Node's own (`NativeModule …`), and the sources in
 * the bundle's files it loaded.
 */
async function loadedBy(dir: string, args: string[]): Promise<{ code: number; loaded: string[] }> {
  const { code, loaded } = await filesLoadedBy(dir, args);
  const inputs = await bundleInputs();
  return { code, loaded: [...loaded, ...loaded.flatMap((url) => inputs.get(url) ?? [])] };
}

/** Each command's run, once per file: two tests may ask about the same one. */
const runs = new Map<string, Promise<{ code: number; loaded: string[] }>>();

/** Every file the command `args` loads: URLs, and Node's own (`NativeModule …`). */
function filesLoadedBy(dir: string, args: string[]): Promise<{ code: number; loaded: string[] }> {
  const key = args.join('\0');
  const run = runs.get(key) ?? runLogged(dir, args);
  runs.set(key, run);
  return run;
}

async function runLogged(dir: string, args: string[]): Promise<{ code: number; loaded: string[] }> {
  const log = join(dir, `loaded-${args.join('-').replace(/[^\w-]/g, '_')}`);
  await writeFile(log, '');
  const code = await new Promise<number>((resolve) => {
    execFile(
      NODE,
      ['--import', HOOK, BIN, ...args],
      { cwd: ROOT, env: { ...process.env, LW_LOADED: log }, timeout: 60_000 },
      (error) => resolve(error ? (typeof error.code === 'number' ? error.code : -1) : 0),
    );
  });
  return { code, loaded: (await readFile(log, 'utf8')).split('\n') };
}

/** The files of the project (its node_modules included) the command `args` loads, from ROOT. */
async function ourFilesLoadedBy(
  dir: string,
  args: string[],
): Promise<{ code: number; files: string[] }> {
  const { code, loaded } = await filesLoadedBy(dir, args);
  const root = pathToFileURL(ROOT).href;
  const ours = loaded.filter((url) => url.startsWith(root)).map((url) => url.slice(root.length));
  return { code, files: [...new Set(ours)] };
}

describe('the command loads only what it needs', () => {
  let sim: SimFixture;
  let unreachable: string;

  before(async () => {
    const cluster = new SimCluster({ seed: 5 });
    cluster.addNodes(3);
    sim = await startSimFixture(cluster, {
      prefix: 'cli-start-modules',
    });
    // The same kubeconfig, its server a port nothing listens on.
    unreachable = join(sim.dir, 'unreachable');
    const text = await readFile(sim.kubeconfig, 'utf8');
    await writeFile(unreachable, text.replace(/https:\/\/127\.0\.0\.1:\d+/, 'https://127.0.0.1:1'));
  });
  after(() => sim.close());

  it('--version loads none of them', async () => {
    assert.deepEqual(await heavyLoadedBy(sim.dir, ['--version']), { code: 0, heavy: [] });
  });

  for (const asked of ['--version', 'version']) {
    it(`${asked} loads the bin and the version alone, none of the command`, async () => {
      const { code, files } = await ourFilesLoadedBy(sim.dir, [asked]);
      const inputs = await bundleInputs();
      const root = pathToFileURL(ROOT).href;
      const sources = files
        .flatMap((file) => inputs.get(`${root}${file}`) ?? [])
        .map((url) => url.slice(root.length));
      assert.deepEqual(
        { code, unbundled: files.filter((file) => file.startsWith('bin/')), sources },
        {
          code: 0,
          unbundled: ['bin/lease-watchdog.js', 'bin/node-version.js'],
          sources: ['cli/version.ts'],
        },
      );
    });
  }

  it('check loads the bundle, none of the compiled modules or node_modules one by one', async () => {
    const { code, files } = await ourFilesLoadedBy(sim.dir, [
      'check',
      '--kubeconfig',
      sim.kubeconfig,
    ]);
    const unbundled = files.filter((file) => !/^(bin\/|dist\/cli-bundle\/)/.test(file));
    assert.deepEqual({ code, unbundled }, { code: 0, unbundled: [] });
    assert.ok(files.includes('dist/cli-bundle/main.js'), files.join(', '));
    // The entry, the command's one chunk and the version's: each file costs its resolution and
    // linking at start (the lazy entries of infra/cli-bundle.ts; 21 files without them).
    const bundled = files.filter((file) => file.startsWith('dist/cli-bundle/'));
    assert.ok(bundled.length <= 3, `${bundled.length} files: ${bundled.join(', ')}`);
  });

  it("keeps V8's compile cache of the command in Node's default place for the next run", async () => {
    // No NODE_COMPILE_CACHE: Node would enable the cache itself. The default is under os.tmpdir().
    const tmp = join(sim.dir, 'tmp');
    await mkdir(tmp);
    const { NODE_COMPILE_CACHE: _, ...env } = process.env;
    await promisify(execFile)(NODE, [BIN, 'check', '--kubeconfig', sim.kubeconfig], {
      env: { ...env, TMPDIR: tmp },
    });
    const cached = await readdir(join(tmp, 'node-compile-cache'), { recursive: true });
    assert.ok(cached.length > 0, 'nothing cached');
  });

  it('check with a token kubeconfig loads none of them', async () => {
    const args = ['check', '--kubeconfig', sim.kubeconfig];
    assert.deepEqual(await heavyLoadedBy(sim.dir, args), { code: 0, heavy: [] });
  });

  it('check with flags of every kind loads none of them', async () => {
    const args = ['check', '--kubeconfig', sim.kubeconfig, '-n', 'kube-node-lease', '-o', 'json'];
    const more = ['--grace-period', '2m', '--timeout', '5', '-l', 'topology.kubernetes.io/zone'];
    assert.deepEqual(await heavyLoadedBy(sim.dir, [...args, ...more]), { code: 0, heavy: [] });
  });

  it('a wrong flag value is refused without them', async () => {
    const args = ['check', '--kubeconfig', sim.kubeconfig, '--grace-period', '0'];
    assert.deepEqual(await heavyLoadedBy(sim.dir, args), { code: 2, heavy: [] });
  });

  it('check of an unreachable server loads none of them', async () => {
    const args = ['check', '--kubeconfig', unreachable, '--timeout', '5s'];
    assert.deepEqual(await heavyLoadedBy(sim.dir, args), { code: 2, heavy: [] });
  });

  it('check of a kubeconfig kubectl did not write loads js-yaml from its own file, and works', async () => {
    // The same kubeconfig as JSON (which YAML reads too): the reader of kubectl's YAML leaves it.
    const json = join(sim.dir, 'kubeconfig.json');
    const { load } = await import('js-yaml');
    await writeFile(json, JSON.stringify(load(await readFile(sim.kubeconfig, 'utf8'))));
    const args = ['check', '--kubeconfig', json];
    assert.deepEqual(await heavyLoadedBy(sim.dir, args), { code: 0, heavy: ['js-yaml'] });
    const { files } = await ourFilesLoadedBy(sim.dir, args);
    assert.ok(files.includes('dist/cli-bundle/js-yaml.cjs'), files.join(', '));
  });

  it('silence list of a state file loads none of them', async () => {
    const state = join(sim.dir, 'state.json');
    // silence refuses a state file no watch created: one check creates it.
    const watch = ['watch', '--checks', '1', '--state-file', state, '--kubeconfig', sim.kubeconfig];
    assert.equal((await runInProcess(watch)).code, 0);
    const args = ['silence', 'list', '--state-file', state, '--kubeconfig', sim.kubeconfig];
    assert.deepEqual(await heavyLoadedBy(sim.dir, args), { code: 0, heavy: [] });
    // Nor node:http: it reads no cluster (lambda/adapters/kube/http/node-http.ts loads it on use).
    const { loaded } = await loadedBy(sim.dir, args);
    assert.ok(!loaded.includes('NativeModule http'), 'node:http loaded');
  });
});
