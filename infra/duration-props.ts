/**
 * The construct's times as a CDK app gives them: `Duration`s under unit-less names
 * (`gracePeriod: Duration.seconds(50)`), converted to the deployment file's units
 * (`gracePeriodSeconds: 50`) with CDK's own conversions, which refuse a fraction. Every
 * `…Seconds` setting of the deployment file has its `Duration` prop, derived from the settings
 * catalogue (types and names alike), plus `schedule` (minutes) and `logRetention` (days). The
 * file's numeric keys stay accepted; giving both forms of one setting is refused. Each refusal is
 * one line naming the prop.
 */
import type { Duration } from 'aws-cdk-lib';
import { allSettings, ConfigError, type LeaseWatchdogConfig } from '../lambda/settings/index.js';

type SecondsKey = Extract<keyof LeaseWatchdogConfig, `${string}Seconds`>;
type PropOf<K> = K extends `${infer Name}Seconds` ? Name : never;

/**
 * `gracePeriod`, `startupGrace`, `reminderInterval`, `stuckRemoval`, `nodeRefresh`,
 * `requestTimeout`: each the deployment file's `<name>Seconds` (README, "Configuration") as a
 * whole number of seconds. `schedule` is `scheduleMinutes` (whole minutes), `logRetention` is
 * `logRetentionDays` (whole days, one of CloudWatch's retention periods). Give one form or the
 * other.
 */
export type DurationProps = {
  readonly [K in SecondsKey as PropOf<K>]?: Duration;
} & {
  /** How often each cluster is checked: `scheduleMinutes`, whole minutes. Default 1 minute. */
  readonly schedule?: Duration;
  /** The function's log retention: `logRetentionDays`, whole days. Default 30 days. */
  readonly logRetention?: Duration;
};

type Unit = 'seconds' | 'minutes' | 'days';

interface TimeProp {
  readonly prop: string;
  readonly key: string;
  readonly unit: Unit;
}

/** Every time prop: the catalogue's top-level `…Seconds` file settings, the schedule and the log retention. */
export const TIME_PROPS: readonly TimeProp[] = [
  ...allSettings()
    .filter((s) => s.places.includes('file') && /^[a-z][A-Za-z]*Seconds$/.test(s.key))
    .map((s) => ({ prop: s.key.replace(/Seconds$/, ''), key: s.key, unit: 'seconds' as const })),
  { prop: 'schedule', key: 'scheduleMinutes', unit: 'minutes' },
  { prop: 'logRetention', key: 'logRetentionDays', unit: 'days' },
];

const EXAMPLE: Record<Unit, string> = {
  seconds: 'Duration.seconds(50)',
  minutes: 'Duration.minutes(1)',
  days: 'Duration.days(30)',
};

function isDuration(value: unknown): value is Duration {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as Partial<Duration>).toSeconds === 'function' &&
    typeof (value as Partial<Duration>).isUnresolved === 'function'
  );
}

/** A Duration in whole `unit`s, or a ConfigError naming the prop. */
function wholeUnits(prop: string, unit: Unit, value: unknown): number {
  if (!isDuration(value)) {
    throw new ConfigError(
      `${prop} must be a Duration, e.g. ${EXAMPLE[unit]} (got ${typeof value})`,
    );
  }
  if (value.isUnresolved()) {
    throw new ConfigError(`${prop} must be known at synth, not a token`);
  }
  const convert = { seconds: value.toSeconds, minutes: value.toMinutes, days: value.toDays }[unit];
  try {
    return convert.call(value);
  } catch {
    throw new ConfigError(`${prop} must be a whole number of ${unit} (got ${value.toString()})`);
  }
}

/**
 * The props with every Duration turned into its file setting, and the props that were converted
 * (for `namingProps`). Throws a ConfigError on a Duration that is not whole in its unit, on both
 * forms of one setting, and on a Duration given to the numeric key.
 */
export function fileSettingsOf<P extends object>(
  props: P,
): { readonly settings: Record<string, unknown>; readonly converted: readonly TimeProp[] } {
  const settings: Record<string, unknown> = { ...(props as Record<string, unknown>) };
  const converted: TimeProp[] = [];
  for (const time of TIME_PROPS) {
    const given = settings[time.prop];
    const fileValue = settings[time.key];
    if (isDuration(fileValue)) {
      throw new ConfigError(
        `${time.key} takes a number of ${time.unit}; give a Duration as ${time.prop}`,
      );
    }
    if (given === undefined) continue;
    if (fileValue !== undefined) {
      throw new ConfigError(`give ${time.prop} or ${time.key}, not both: they are one setting`);
    }
    delete settings[time.prop];
    settings[time.key] = wholeUnits(time.prop, time.unit, given);
    converted.push(time);
  }
  return { settings, converted };
}

/**
 * Runs `parse` and, when its ConfigError is about a setting given as a Duration, names the prop:
 * `gracePeriod (gracePeriodSeconds) must be a whole number from 1 to 86400 (got 172800)`.
 */
export function namingProps<T>(converted: readonly TimeProp[], parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    const time = converted.find(
      (t) => error instanceof Error && error.message.startsWith(`${t.key} `),
    );
    if (error instanceof ConfigError && time !== undefined) {
      throw new ConfigError(`${time.prop} (${error.message.replace(' ', ') ')}`, { cause: error });
    }
    throw error;
  }
}
