/**
 * Five-field cron expressions, in UTC: `minute hour day-of-month month day-of-week`, as crontab(5)
 * writes them. Each field is `*`, a number, a range `a-b`, a step `*\/n` or `a-b/n`, or a list of
 * those separated by commas; months and days of the week may be named (`jan`, `sun`); day of the
 * week 0 and 7 are both Sunday. When both day fields are restricted, a day matching either runs
 * (Vixie cron's rule). Pure: the clock comes in as an argument.
 */

export class CronSyntaxError extends Error {
  override readonly name = 'CronSyntaxError';
}

export interface CronSchedule {
  /** The expression as written. */
  readonly source: string;
  readonly minutes: ReadonlySet<number>;
  readonly hours: ReadonlySet<number>;
  readonly days: ReadonlySet<number>;
  readonly months: ReadonlySet<number>;
  /** 0 = Sunday … 6 = Saturday (7 is folded into 0). */
  readonly weekdays: ReadonlySet<number>;
  readonly daysRestricted: boolean;
  readonly weekdaysRestricted: boolean;
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'];
const WEEKDAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'];

interface Field {
  readonly what: string;
  readonly min: number;
  readonly max: number;
  readonly names?: readonly string[];
  /** The value of the first name (1 for months, 0 for days of the week). */
  readonly firstName?: number;
}

const FIELDS: readonly Field[] = [
  { what: 'minute', min: 0, max: 59 },
  { what: 'hour', min: 0, max: 23 },
  { what: 'day of month', min: 1, max: 31 },
  { what: 'month', min: 1, max: 12, names: MONTHS, firstName: 1 },
  { what: 'day of week', min: 0, max: 7, names: WEEKDAYS, firstName: 0 },
];

function fieldValue(text: string, field: Field, bad: (what: string) => CronSyntaxError): number {
  const named = field.names?.indexOf(text.toLowerCase()) ?? -1;
  if (named >= 0) return named + (field.firstName ?? 0);
  if (!/^\d{1,2}$/.test(text)) throw bad(`"${text}" is not a ${field.what}`);
  const value = Number(text);
  if (value < field.min || value > field.max) {
    throw bad(`${field.what} ${value} is out of range ${field.min}-${field.max}`);
  }
  return value;
}

function parseField(text: string, field: Field, expression: string): Set<number> {
  const values = new Set<number>();
  const bad = (what: string) => new CronSyntaxError(`${what} in cron "${expression}"`);
  for (const part of text.split(',')) {
    const [range = '', stepText, ...extra] = part.split('/');
    if (extra.length > 0 || range === '') throw bad(`"${part}" is not a ${field.what}`);
    if (stepText !== undefined && (!/^\d{1,2}$/.test(stepText) || Number(stepText) === 0)) {
      throw bad(`step "${stepText}" must be 1 to 99`);
    }
    const all = range === '*';
    const [low = '', high, ...more] = all ? [] : range.split('-');
    if (more.length > 0) throw bad(`"${range}" is not a ${field.what} range`);
    const from = all ? field.min : fieldValue(low, field, bad);
    // `a/n` runs from a to the end of the field; `a` alone is a.
    const open = all || (high === undefined && stepText !== undefined);
    const to = open ? field.max : high === undefined ? from : fieldValue(high, field, bad);
    if (to < from) throw bad(`range "${range}" runs backwards`);
    for (let v = from; v <= to; v += Number(stepText ?? 1)) values.add(v);
  }
  return values;
}

/** Parses a five-field cron expression (UTC); throws CronSyntaxError naming the bad field. */
export function parseCron(source: string): CronSchedule {
  const parts = source.trim().split(/\s+/);
  if (parts.length !== 5 || parts[0] === '') {
    throw new CronSyntaxError(
      `cron "${source}" must have 5 fields: minute hour day-of-month month day-of-week (UTC), e.g. "0 2 * * sun"`,
    );
  }
  const [minutes, hours, days, months, weekdays] = parts.map((part, i) =>
    parseField(part, FIELDS[i] as Field, source),
  ) as [Set<number>, Set<number>, Set<number>, Set<number>, Set<number>];
  if (weekdays.has(7)) {
    weekdays.delete(7);
    weekdays.add(0);
  }
  return {
    source,
    minutes,
    hours,
    days,
    months,
    weekdays,
    daysRestricted: !parts[2]?.startsWith('*'),
    weekdaysRestricted: !parts[4]?.startsWith('*'),
  };
}

const MINUTE_MS = 60_000;

/** Whether the schedule runs on the UTC day of `at` (month and the day fields). */
function runsOnDay(schedule: CronSchedule, at: Date): boolean {
  if (!schedule.months.has(at.getUTCMonth() + 1)) return false;
  const day = schedule.days.has(at.getUTCDate());
  const weekday = schedule.weekdays.has(at.getUTCDay());
  if (schedule.daysRestricted && schedule.weekdaysRestricted) return day || weekday;
  return day && weekday;
}

const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;

/**
 * The last time the schedule fired at or before `now` and less than `withinMs` before it (epoch ms,
 * on a whole minute), or undefined. Walks back minute by minute, skipping whole days and hours
 * the schedule does not run in: at most `withinMs / 60 s` steps (10,080 for a window of 7 days).
 */
export function lastFiring(
  schedule: CronSchedule,
  now: number,
  withinMs: number,
): number | undefined {
  let at = Math.floor(now / MINUTE_MS) * MINUTE_MS;
  while (at > now - withinMs) {
    const date = new Date(at);
    if (!runsOnDay(schedule, date)) {
      at = Math.floor(at / DAY_MS) * DAY_MS - MINUTE_MS;
    } else if (!schedule.hours.has(date.getUTCHours())) {
      at = Math.floor(at / HOUR_MS) * HOUR_MS - MINUTE_MS;
    } else if (schedule.minutes.has(date.getUTCMinutes())) {
      return at;
    } else {
      at -= MINUTE_MS;
    }
  }
  return undefined;
}
