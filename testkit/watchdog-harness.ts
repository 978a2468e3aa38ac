/**
 * The scheduled function with real parts, for end-to-end tests: one or more simulated clusters
 * behind their HTTPS API servers, a local Secrets Manager holding their bearer tokens, dynalite
 * with the state table, a local SNS endpoint (harness-parts.ts), real AWS SDK clients pointed at
 * them (static fake credentials, us-east-1), and the middy handler that `createHandler` builds,
 * middlewares included, exactly as `lambda/handler/handler.ts` builds it (harness-container.ts).
 * Only the logger and metrics are fakes (they are ports), and the clock: one fake clock drives
 * the sims (lazy lease renewals, the API's Date header), the watchdog, the state TTL and the SNS
 * server's `receivedAt`, so an hour of schedule takes a second. Never AWS.
 *
 *   const h = await startWatchdogHarness({ clusters: { prod: { nodes: 6 } } });
 *   await h.run();            // one scheduled invocation, now
 *   await h.tick();           // advance the clock by the schedule interval, then run
 *   h.sns.messages            // what SNS accepted
 *   await h.close();
 *
 * The parts load with the first harness started, not with this module: a test that takes only the
 * clock, the constants or the message helpers from here does not load the handler (whose
 * Kubernetes client alone is most of 3 s of CPU).
 */
import type { HandlerEvent } from '../lambda/handler/create-handler.js';
import { FakeClock } from './fake-clock.js';
import { type Closer, type Harness, type HarnessOptions, SCHEDULE_MS } from './harness-options.js';
import { QueuedLooks } from './queued-looks.js';
import { kindOf } from './watchdog-messages.js';

export { FakeClock, T0 } from './fake-clock.js';
export {
  type Container,
  type ContainerOverrides,
  type Harness,
  type HarnessOptions,
  type Invocation,
  localCredentials,
  type Report,
  SCHEDULE_MS,
  type ScriptedCluster,
  type SimClusterSpec,
  type SimTarget,
  TOPIC_ARN,
} from './harness-options.js';
export { lambdaContext } from './lambda-context.js';
export {
  type LogEntry,
  type RecordedMetric,
  RecordingLogger,
  RecordingMetrics,
} from './recording-ports.js';
export { attributesOf, kindOf, summary } from './watchdog-messages.js';

export async function startWatchdogHarness(options: HarnessOptions = {}): Promise<Harness> {
  const [{ startOutsideWorld }, { containerFactory }] = await Promise.all([
    import('./harness-parts.js'),
    import('./harness-container.js'),
  ]);
  const clock = new FakeClock(options.clockStart);
  const closers: Closer[] = [];
  const close = async () => {
    for (const closer of closers.reverse()) await closer();
  };
  try {
    const world = await startOutsideWorld(clock, options, closers);
    const looks = options.withLooks ? new QueuedLooks(clock) : undefined;
    let runs = 0;
    const nextRunId = () => `run-${String(++runs).padStart(4, '0')}`;
    const container = containerFactory({ clock, world, options, looks, nextRunId, closers });
    const main = container();
    const run = (event: HandlerEvent = null) => main.invoke(event);
    const { targets, sns } = world;
    return {
      clock,
      settings: world.settings,
      targets,
      sns,
      secrets: world.secrets,
      dynamo: world.dynamo,
      tableName: world.tableName,
      metrics: main.metrics,
      logger: main.logger,
      pagerDuty: world.pagerDuty,
      opsgenie: world.opsgenie,
      target(name) {
        const target = name === undefined ? targets.values().next().value : targets.get(name);
        if (!target) throw new Error(`no simulated cluster ${String(name)}`);
        return target;
      },
      container,
      run,
      tick(event = null) {
        clock.advance(SCHEDULE_MS);
        return run(event);
      },
      looks,
      async advanceTo(time) {
        if (looks) await looks.runUntil(time, (event) => main.invoke(event));
        else clock.advanceTo(time);
      },
      nextRunId,
      messages: (kind) =>
        kind === undefined ? [...sns.messages] : sns.messages.filter((m) => kindOf(m) === kind),
      close,
    };
  } catch (error) {
    await close();
    throw error;
  }
}
