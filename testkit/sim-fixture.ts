/**
 * What a test of the command or of kubectl needs around a simulated cluster: the cluster behind
 * its HTTPS API server (sim/server.ts), a temporary directory, and a kubeconfig for the server in
 * it; `close()` stops the server and removes the directory. `tempKubeconfig` is the directory and
 * kubeconfig alone, for any server that writes one (the harness's, testkit/tiny-api.ts).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SimCluster } from '../sim/cluster.js';
import { type SimServer, type SimServerOptions, startSimServer } from '../sim/server.js';

export interface TempKubeconfig {
  /** A temporary directory of the test's own. */
  readonly dir: string;
  /** `<dir>/kubeconfig`, pointing at the server. */
  readonly kubeconfig: string;
  /** Removes the directory and all in it. */
  remove(): Promise<void>;
}

/** A temporary directory (named after `prefix`) holding the server's kubeconfig. */
export async function tempKubeconfig(
  server: { writeKubeconfig(path: string): Promise<void> },
  prefix: string,
): Promise<TempKubeconfig> {
  const dir = await mkdtemp(join(tmpdir(), `${prefix}-`));
  const kubeconfig = join(dir, 'kubeconfig');
  try {
    await server.writeKubeconfig(kubeconfig);
  } catch (error) {
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  return { dir, kubeconfig, remove: () => rm(dir, { recursive: true, force: true }) };
}

export interface SimFixture extends TempKubeconfig {
  readonly cluster: SimCluster;
  readonly server: SimServer;
  /** Stops the server and removes the directory. */
  close(): Promise<void>;
}

/** Serves `cluster` over HTTPS and writes its kubeconfig into a new temporary directory. */
export async function startSimFixture(
  cluster: SimCluster,
  options: { readonly prefix: string } & Omit<SimServerOptions, 'cluster'>,
): Promise<SimFixture> {
  const { prefix, ...serverOptions } = options;
  const server = await startSimServer({ ...serverOptions, cluster });
  let files: TempKubeconfig;
  try {
    files = await tempKubeconfig(server, prefix);
  } catch (error) {
    await server.close();
    throw error;
  }
  return {
    ...files,
    cluster,
    server,
    async close() {
      try {
        await server.close();
      } finally {
        await files.remove();
      }
    },
  };
}

/**
 * Stops the kubelet of node `name` as if it had died 5 minutes before `now`, on a 4-s lease: the
 * first look finds it silent, and a look one renew interval (~2.6 s) after that confirms it
 * (core/renewal-clock.ts), so two looks 3 s apart page it.
 */
export function stopKubeletLongAgo(cluster: SimCluster, name: string, now: number): void {
  cluster.stopKubelet(name);
  cluster.setLeaseField(name, {
    renewTime: new Date(now - 300_000).toISOString().replace('Z', '000Z'),
    leaseDurationSeconds: 4,
  });
}
