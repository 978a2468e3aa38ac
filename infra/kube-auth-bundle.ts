/**
 * client-node's `KubeConfig` as a file of its own beside the handler bundle, `kube-auth.mjs`, loaded
 * only when a kubeconfig user needs client-node's authenticators (in Lambda: an OIDC
 * `auth-provider`; exec plugins are refused). lambda/adapters/kube/config/kube-config.ts imports it with
 * `await import()`, which esbuild would inline into the one output file NodejsFunction asks for
 * (`--outfile`, so no code splitting): ~400 kB, a third of the bundle, compiled by V8 at every cold
 * start and used by almost none. The bundle aliases that import to `./kube-auth.mjs`, left external
 * (`KUBE_AUTH_BUNDLING`); this builds the file once per synth into the cloud assembly's directory,
 * with the handler's own esbuild options, and the bundling's `afterBundling` hook copies it in.
 */
import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';

/** The file beside index.mjs, and what the handler's code imports in its place. */
export const KUBE_AUTH_FILE = 'kube-auth.mjs';
const CLIENT_NODE_CONFIG = '@kubernetes/client-node/dist/config.js';

/** What the handler's bundling adds: the alias and the external (esbuild's own options). */
export const KUBE_AUTH_BUNDLING = {
  alias: `${CLIENT_NODE_CONFIG}=./${KUBE_AUTH_FILE}`,
  external: `./${KUBE_AUTH_FILE}`,
} as const;

/** The handler bundle's own options, repeated for this one: ESM for Node 24, minified, mapped. */
export interface KubeAuthOptions {
  /** The cloud assembly's directory (the staged file's home). */
  readonly outdir: string;
  readonly target: string;
  readonly banner: string;
  readonly mainFields: readonly string[];
  /** esbuild aliases: package → file. */
  readonly alias: Readonly<Record<string, string>>;
}

/** The directories built into by this process: a synth builds the file once, whatever it bundles. */
const built = new Set<string>();

/**
 * Builds kube-auth.mjs (and its source map) into `<outdir>/lease-watchdog-kube-auth/`, once per
 * process and directory (a cloud assembly outlives a synth: an older file is rebuilt); returns the
 * two files. The directory sits at the depth of the assets' own, so that the map's relative
 * sources hold once copied.
 */
export function stagedKubeAuth(options: KubeAuthOptions): string[] {
  const dir = join(options.outdir, 'lease-watchdog-kube-auth');
  const outfile = join(dir, KUBE_AUTH_FILE);
  const files = [outfile, `${outfile}.map`];
  if (built.has(dir)) return files;
  mkdirSync(dir, { recursive: true });
  // esbuild is what bundles the handler too (NodejsFunction); loaded only when bundling.
  const esbuild = createRequire(import.meta.url)('esbuild') as typeof import('esbuild');
  esbuild.buildSync({
    entryPoints: [createRequire(import.meta.url).resolve(CLIENT_NODE_CONFIG)],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: options.target,
    minify: true,
    sourcemap: true,
    sourcesContent: false,
    mainFields: [...options.mainFields],
    banner: { js: options.banner },
    alias: { ...options.alias },
    logLevel: 'warning',
  });
  built.add(dir);
  return files;
}
