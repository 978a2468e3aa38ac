/**
 * The package's version, in a module of its own: the bin answers `--version` with it alone,
 * before it loads the command (bin/lease-watchdog.js), and the command's `version` shows it too.
 */
import { existsSync, readFileSync } from 'node:fs';

/** The package's version: package.json one level up from the sources, two from dist/. */
export function version(): string {
  for (const up of ['../package.json', '../../package.json']) {
    const url = new URL(up, import.meta.url);
    if (!existsSync(url)) continue;
    const pkg = JSON.parse(readFileSync(url, 'utf8')) as { name?: string; version?: string };
    if (pkg.name === 'lease-watchdog' && pkg.version) return pkg.version;
  }
  return 'unknown';
}
