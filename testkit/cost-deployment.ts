/**
 * What the default deployment does in a month, and the estimates the cost rests on where a unit
 * cannot be measured here (log envelopes, SQS requests, the event source mapping's polling): the
 * quantities `npm run bench:cost` multiplies by what it measures and by the price list.
 */
import { DEFAULTS } from '../lambda/settings/index.js';
import { ROUTINE_LOOKS_MS } from '../lambda/use-cases/look-requests.js';
import { SCHEDULE_MS } from './watchdog-harness.js';

export const RUNS_PER_MONTH = 43_200; // 30 days of the default 1-minute schedule
/**
 * Each scheduled run asks (through SQS) for routine looks (ROUTINE_LOOKS_MS), each an invocation
 * of its own. On the punctual schedule priced here, the looks due before the next run read the
 * cluster (LOOKS_PER_RUN: the one 32 s after it); the others come after the next run, which
 * supersedes them (use-cases/look-requests.ts): an invocation that reads nothing. With the
 * Scheduler's jitter (runs anywhere in their minute) more read: JITTERED_READS_PER_RUN.
 */
export const LOOKS_ASKED_PER_RUN = ROUTINE_LOOKS_MS.length;
export const LOOKS_PER_RUN = ROUTINE_LOOKS_MS.filter((ms) => ms < SCHEDULE_MS).length;
export const LOOKS_PER_MONTH = RUNS_PER_MONTH * LOOKS_PER_RUN;
export const SUPERSEDED_PER_MONTH = RUNS_PER_MONTH * (LOOKS_ASKED_PER_RUN - LOOKS_PER_RUN);
/**
 * The routine looks of a run that read when runs land anywhere in their minute: each reads when
 * the next run comes later than it, and the gap between two runs is then triangular over 0-2
 * minutes (the sum of two uniform offsets), so P(gap > x) = 1 - x²/2m² up to a minute m, and
 * (2m - x)²/2m² past it. About 1.37 of the three.
 */
export const JITTERED_READS_PER_RUN = ROUTINE_LOOKS_MS.reduce((sum, x) => {
  const m = SCHEDULE_MS;
  return sum + (x <= m ? 1 - x ** 2 / (2 * m ** 2) : (2 * m - x) ** 2 / (2 * m ** 2));
}, 0);
/** Whole Node lists a month: one per `nodeRefreshSeconds` (on a scheduled run or a look). */
export const RELISTS_PER_MONTH =
  (RUNS_PER_MONTH * SCHEDULE_MS) / (DEFAULTS.nodeRefreshSeconds * 1000);
/** The stack's default `memoryMb` (lambda/settings/defaults.ts), arm64. */
export const MEMORY_MB = 512;
export const MEMORY_GB = MEMORY_MB / 1024;
/**
 * Lambda gives a function CPU in proportion to its memory: "At 1,769 MB, a function has the
 * equivalent of one vCPU (one vCPU-second of credits per second)" (Lambda developer guide,
 * https://docs.aws.amazon.com/lambda/latest/dg/configuration-memory.html).
 */
export const MB_PER_VCPU = 1769;
/** The 512 MB function's share of a vCPU: about 0.29. */
export const VCPU_SHARE = MEMORY_MB / MB_PER_VCPU;
/** Powertools' JSON envelope around each log line (timestamp, level, service, function context). */
export const LOG_ENVELOPE_BYTES = 330;
/** One EMF metric record as CloudWatch ingests it (the `_aws` metadata, dimensions, value). */
export const EMF_BYTES_PER_RECORD = 260;
/**
 * SQS requests, counted as SQS bills them (a batch request is one request per 64 KB): a scheduled
 * run asks for its routine looks in one SendMessageBatch; each look is received by the event source
 * mapping (one ReceiveMessage: one cluster's looks are 32 s apart and never share a batch) and
 * deleted after the invocation (one DeleteMessageBatch), superseded or not. A suspect's re-check (not in a healthy
 * cluster) costs a SendMessage more. The mapping's polling of an empty queue is in the fixed costs.
 */
export const SQS_REQUESTS_PER_RUN = 1;
export const SQS_REQUESTS_PER_LOOK = 2;
/**
 * The event source mapping polls the queue even when it is empty: Lambda polls a standard queue
 * with long polling, starting with five concurrent pollers (AWS Compute Blog, "Understanding how
 * AWS Lambda scales with Amazon SQS standard queues"; Lambda developer guide, "Using Lambda with
 * Amazon SQS"), and a long poll waits at most 20 s (SQS developer guide, "Setting-up long polling").
 * An estimate: 5 pollers × 3 empty receives a minute, all month.
 */
export const IDLE_POLLERS = 5;
export const IDLE_RECEIVES_PER_MONTH = IDLE_POLLERS * 3 * 60 * 24 * 30;
/** The per-cluster dead-man's switch: its alarm (`<stackName>-NoSuccessfulCheck-<cluster>`), beside its metric. */
export const DEAD_MAN_ALARMS = 1;
/** The goals: variable cost per cluster-month, in dollars, by cluster size. */
export const GOALS: Record<number, number> = { 1000: 0.5, 5000: 1, 100000: 5 };
