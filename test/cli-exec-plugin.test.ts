/**
 * An exec credential plugin's stderr can echo credentials: the CLI quotes it only with
 * -v/--verbose, and never what the plugin printed on stdout. The command in process, with a real
 * plugin (a node one-liner) in the kubeconfig: client-node runs it as a child process of its own,
 * so the command need not be one.
 */

import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runInProcess as runCli } from '../testkit/cli-in-process.js';
import { startTinyApi, type TinyApi } from '../testkit/tiny-api.js';

const SECRET = 'plugin-echoed-secret-7f3a';

/** A kubeconfig whose user runs `node -e <script>` as its exec plugin. */
function withPlugin(tiny: TinyApi, script: string): string {
  const user = [
    '    exec:',
    '      apiVersion: client.authentication.k8s.io/v1beta1',
    `      command: ${JSON.stringify(process.execPath)}`,
    '      args:',
    '      - -e',
    `      - ${JSON.stringify(script)}`,
    '      interactiveMode: Never',
  ].join('\n');
  return tiny.kubeconfigYaml().replace(/ {4}token: .*/, user);
}

describe('the CLI and an exec credential plugin', () => {
  let tiny: TinyApi;
  let dir: string;

  before(async () => {
    tiny = await startTinyApi();
    dir = await mkdtemp(join(tmpdir(), 'lease-watchdog-exec-'));
  });
  after(async () => {
    await tiny.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("a failing plugin's stderr is hidden without --verbose, shown with it", async () => {
    const kubeconfig = join(dir, 'failing');
    await writeFile(
      kubeconfig,
      withPlugin(tiny, `process.stderr.write('login failed for token=${SECRET}'); process.exit(1)`),
    );
    const quiet = await runCli(['check', '--kubeconfig', kubeconfig]);
    assert.equal(quiet.code, 2);
    assert.equal(quiet.stderrLines.length, 1, quiet.stderrLines.join('\n'));
    assert.match(
      quiet.stderrLines[0] ?? '',
      /credential plugin ".*" of kubeconfig user "tiny-user" failed: pass -v\/--verbose/,
    );
    assert.doesNotMatch(quiet.stderrLines.join('\n'), new RegExp(SECRET));

    const verbose = await runCli(['check', '--kubeconfig', kubeconfig, '-v']);
    assert.equal(verbose.code, 2);
    assert.match(verbose.stderrLines.join('\n'), new RegExp(`login failed for token=${SECRET}`));
  });

  it('what a plugin prints on stdout is never quoted, verbose or not', async () => {
    const kubeconfig = join(dir, 'garbled');
    await writeFile(kubeconfig, withPlugin(tiny, `process.stdout.write('token ${SECRET}')`));
    const result = await runCli(['check', '--kubeconfig', kubeconfig, '--verbose']);
    assert.equal(result.code, 2);
    assert.match(
      result.stderrLines[0] ?? '',
      /failed: it did not print an ExecCredential \(JSON\)$/,
    );
    assert.doesNotMatch(result.stderrLines.join('\n'), new RegExp(SECRET));
  });
});
