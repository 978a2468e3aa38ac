/**
 * Writes the handler bundle the installed package ships (`dist/handler-bundle`): `npm run bundle`,
 * which `npm pack` runs as `prepack` and `npm test` before the tests. The construct itself
 * bundles `lambda/handler/handler.ts` in a throwaway app, with the very bundling the stack uses,
 * and the asset it stages is copied out. An installed
 * `lease-watchdog/infra` has no TypeScript sources; it deploys this bundle instead, so a user's
 * synth needs neither esbuild nor Docker, and the deployed code is the code this repository tested.
 */
import { cpSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { CLUSTER_FILE } from '../lambda/settings/index.js';
import { LeaseWatchdog } from './lease-watchdog.js';
import { DEFAULT_ENTRY } from './watchdog-function.js';

/** Where the compiled construct (dist/infra/watchdog-function.js) looks for it: `PREBUILT_HANDLER`. */
const TARGET = fileURLToPath(new URL('../dist/handler-bundle', import.meta.url));

const work = mkdtempSync(join(tmpdir(), 'lease-watchdog-bundle-'));
try {
  const app = new App({ outdir: work });
  const stack = new Stack(app, 'HandlerBundle');
  new LeaseWatchdog(stack, 'Watchdog', {
    clusters: [{ name: 'bundle', auth: { mode: 'eks' } }],
    emails: ['bundle@example.com'],
    entry: DEFAULT_ENTRY,
  });
  const template = Template.fromStack(stack);
  const assembly = app.synth();
  const [fn] = Object.values(template.findResources('AWS::Lambda::Function'));
  const s3Key = fn?.Properties.Code.S3Key as string;
  const asset = join(assembly.directory, `asset.${s3Key.replace(/\.zip$/, '')}`);
  rmSync(TARGET, { recursive: true, force: true });
  cpSync(asset, TARGET, { recursive: true });
  // The throwaway app's clusters: a user's synth writes theirs (watchdog-function.ts).
  rmSync(join(TARGET, CLUSTER_FILE), { force: true });
  process.stderr.write(
    `lease-watchdog: handler bundled into ${TARGET}: ${readdirSync(TARGET).join(', ')}\n`,
  );
} finally {
  rmSync(work, { recursive: true, force: true });
}
