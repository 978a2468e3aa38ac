// Which Node the command needs, checked before anything else is imported: on an older Node the
// first import that uses a newer API would fail with a stack trace and exit 1, which means
// "nodes alerting". Plain JavaScript that any Node since 14 can run; `engines` in package.json
// says the same version (test/cli-node-version.test.ts holds them together).

/** The oldest Node the command runs on: [major, minor]. */
export const REQUIRED_NODE = [22, 19];

/**
 * The one line to print when `found` (process.versions.node) is older than REQUIRED_NODE, or
 * undefined when it is recent enough.
 */
export function unsupportedNode(found) {
  const [major = 0, minor = 0] = String(found).split('.').map(Number);
  const [needMajor, needMinor] = REQUIRED_NODE;
  if (major > needMajor || (major === needMajor && minor >= needMinor)) return undefined;
  return `lease-watchdog: needs Node.js ${needMajor}.${needMinor} or later, found ${found}: install Node.js ${needMajor}.${needMinor} or later (nodejs.org) and run it again`;
}
