/**
 * Which command of the CDK CLI runs this app (`synth`, `deploy`, …). The CLI tells its app
 * nothing about it: the app gets `CDK_OUTDIR`, `CDK_CONTEXT_JSON` (the same keys for every
 * command), the default account and region, and the versions. So it is read from the CLI's own
 * command line: the nearest ancestor process whose arguments run a `cdk` executable.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { basename } from 'node:path';

/** The commands that change a CloudFormation stack. */
export const DEPLOYING_COMMANDS: ReadonlySet<string> = new Set(['deploy', 'watch', 'import']);

const CDK_COMMANDS = new Set([
  ...DEPLOYING_COMMANDS,
  'list',
  'ls',
  'synth',
  'synthesize',
  'diff',
  'drift',
  'destroy',
  'bootstrap',
  'gc',
  'rollback',
  'refactor',
  'publish-assets',
  'metadata',
  'context',
  'docs',
  'doctor',
  'notices',
  'acknowledge',
  'ack',
  'flags',
  'migrate',
  'init',
]);

/** What the process table says about one process. */
export interface ProcessTable {
  /** Its parent's id; undefined when there is none or it cannot be read. */
  parentOf(pid: number): number | undefined;
  /** Its command line; undefined when it cannot be read. */
  argvOf(pid: number): readonly string[] | undefined;
}

/** Linux: /proc. */
const procfs: ProcessTable = {
  parentOf(pid) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      // "pid (comm) state ppid …": comm may hold spaces and parentheses.
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      return Number.isInteger(ppid) && ppid > 0 ? ppid : undefined;
    } catch {
      return undefined;
    }
  },
  argvOf(pid) {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
    } catch {
      return undefined;
    }
  },
};

/** macOS and the BSDs: ps (arguments split on spaces, enough to find `cdk` and its command). */
const ps: ProcessTable = {
  parentOf(pid) {
    const ppid = Number(psField(pid, 'ppid='));
    return Number.isInteger(ppid) && ppid > 0 ? ppid : undefined;
  },
  argvOf(pid) {
    return psField(pid, 'args=')?.split(/\s+/).filter(Boolean);
  },
};

function psField(pid: number, field: string): string | undefined {
  try {
    return execFileSync('ps', ['-o', field, '-p', String(pid)], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
  } catch {
    return undefined;
  }
}

/** The process table of this platform; null where neither /proc nor ps answers. */
export function localProcessTable(): ProcessTable | null {
  if (existsSync('/proc/self/stat')) return procfs;
  return ps.parentOf(process.pid) === undefined ? null : ps;
}

/**
 * The CDK CLI command among this process's ancestors: `none` when no ancestor runs `cdk` (the
 * app was started by hand or by a test), `unknown` when the process table cannot be read.
 */
export function cdkCommand(
  table: ProcessTable | null = localProcessTable(),
  from: number = process.ppid,
): string {
  if (table === null) return 'unknown';
  let pid: number | undefined = from;
  for (let depth = 0; pid !== undefined && pid > 1 && depth < 32; depth++) {
    const argv = table.argvOf(pid);
    const cdk = argv?.findIndex((arg) => basename(arg) === 'cdk') ?? -1;
    if (argv !== undefined && cdk >= 0) {
      return argv.slice(cdk + 1).find((arg) => CDK_COMMANDS.has(arg)) ?? 'unknown';
    }
    pid = table.parentOf(pid);
  }
  return 'none';
}
