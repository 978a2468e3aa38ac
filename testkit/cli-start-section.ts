/**
 * What `npm run bench:cli-start` writes to docs/BENCHMARKS.md: its section, from the medians it
 * measured. Apart from the measuring (bench/cli-start.ts) so that a test can check the rendering
 * (the ratios, the goal's verdict) without timing anything.
 */

/** One command of lease-watchdog beside the kubectl command that does the same. */
export interface CliStartRow {
  /** What the pair does ("check, 12 nodes"). */
  readonly what: string;
  readonly ours: string;
  readonly kubectl: string;
  /** Median wall time of each, ms. */
  readonly oursMs: number;
  readonly kubectlMs: number;
}

export interface CliStartResult {
  /** YYYY-MM-DD */
  readonly date: string;
  readonly node: string;
  readonly kubectlVersion: string;
  readonly runs: number;
  readonly nodes: number;
  /** `node -e ''`, median wall time, ms. */
  readonly bareNodeMs: number;
  /** `lease-watchdog --version`, median wall time, ms. */
  readonly versionMs: number;
  readonly rows: readonly CliStartRow[];
}

export const CLI_START_HEADING = "## The command's start beside kubectl";

/** The goal: each command within 1.5× kubectl's wall time, --version ≤ 300 ms. */
export const RATIO_GOAL = 1.5;
export const VERSION_GOAL_MS = 300;

/** The ratio ours ÷ kubectl, two decimals. */
export function ratioOf(row: CliStartRow): number {
  return Number((row.oursMs / row.kubectlMs).toFixed(2));
}

function verdict(met: boolean): string {
  return met ? 'met' : '**missed**';
}

/**
 * The section's lines, its heading (with the run's date) first, a blank line last. Each verdict
 * follows the figure as shown (ms rounded, ratios to two decimals).
 */
export function renderCliStart(result: CliStartResult): string[] {
  const ms = (value: number) => `${Math.round(value)} ms`;
  const rows = result.rows.map(
    (row) =>
      `| ${row.what} | \`${row.ours}\` | ${ms(row.oursMs)} | \`${row.kubectl}\` | ${ms(row.kubectlMs)} | ${ratioOf(row).toFixed(2)}× | ${verdict(ratioOf(row) <= RATIO_GOAL)} |`,
  );
  return [
    `${CLI_START_HEADING} (${result.date})`,
    '',
    `\`npm run bench:cli-start\` (bench/cli-start.ts): the installed command (\`bin/lease-watchdog.js\`, bundled, on Node ${result.node}) and kubectl ${result.kubectlVersion}, each command run ${result.runs} times in fresh processes, the two alternating, against the simulated cluster of ${result.nodes} nodes served from the bench's own process; median wall time. Goal: within ${RATIO_GOAL}× kubectl, \`--version\` ≤ ${VERSION_GOAL_MS} ms. A bare \`node -e ''\` took ${ms(result.bareNodeMs)} in the same rounds: the machine is shared, compare the ratios.`,
    '',
    `\`lease-watchdog --version\`: ${ms(result.versionMs)} (${(result.versionMs / result.bareNodeMs).toFixed(2)}× a bare node), ${verdict(Math.round(result.versionMs) <= VERSION_GOAL_MS)}.`,
    '',
    '| what | lease-watchdog | median | kubectl | median | ratio | ≤ 1.5× |',
    '|---|---|---:|---|---:|---:|---|',
    ...rows,
    '',
  ];
}
