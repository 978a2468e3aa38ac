/** The command line as kubectl's users type it: durations, negative values, unknown flags. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseCli, UsageError, type WatchOptions } from '../cli/args.js';
import { parseDuration } from '../lambda/core/duration.js';

function watchOptions(args: string[]): WatchOptions {
  const command = parseCli(['watch', ...args]);
  assert.equal(command.kind, 'watch');
  return (command as { options: WatchOptions }).options;
}

function usageError(args: string[]): string {
  try {
    parseCli(args);
  } catch (error) {
    assert.ok(error instanceof UsageError, String(error));
    return error.message;
  }
  return assert.fail('expected a UsageError');
}

describe('durations', () => {
  const cases: [string, number | undefined][] = [
    ['50', 50],
    ['0.5', 0.5],
    ['90s', 90],
    ['10m', 600],
    ['2h', 7200],
    ['1h30m', 5400],
    ['1m30s', 90],
    ['500ms', 0.5],
    ['', undefined],
    ['10 m', undefined],
    ['10d', undefined],
    ['-5s', undefined],
    ['soon', undefined],
  ];
  for (const [text, seconds] of cases) {
    it(`${JSON.stringify(text)} → ${seconds}`, () => assert.equal(parseDuration(text), seconds));
  }

  it('every option that takes seconds takes a duration', () => {
    const options = watchOptions([
      '--grace-period',
      '90s',
      '--startup-grace',
      '2m',
      '--timeout',
      '30s',
      '--interval',
      '500ms',
      '--reminder-interval',
      '2h',
      '--node-refresh',
      '10m',
    ]);
    assert.deepEqual(
      [
        options.gracePeriodSeconds,
        options.startupGraceSeconds,
        options.timeoutSeconds,
        options.intervalSeconds,
        options.reminderIntervalSeconds,
        options.nodeRefreshSeconds,
      ],
      [90, 120, 30, 0.5, 7200, 600],
    );
  });

  it('a duration still meets the setting: whole seconds, within bounds', () => {
    assert.equal(
      usageError(['check', '--grace-period', '1500ms']),
      '--grace-period must be a whole number from 1 to 86400 (got 1.5)',
    );
    // Not a duration at all (kubectl's units stop at h): said so, not "a whole number".
    assert.equal(
      usageError(['check', '--grace-period', '2d']),
      '--grace-period must be a duration such as 90s, 2m or 1h30m (units h, m, s, ms), or whole seconds (got "2d")',
    );
  });
});

describe("kubectl's conventions", () => {
  it('--request-timeout is --timeout', () => {
    const command = parseCli(['check', '--request-timeout', '20s']);
    assert.equal(command.kind === 'check' && command.options.timeoutSeconds, 20);
  });

  it('a negative number after an option is its value, rejected by the setting', () => {
    assert.equal(
      usageError(['check', '--grace-period', '-5']),
      '--grace-period must be a whole number from 1 to 86400 (got -5)',
    );
    assert.equal(
      usageError(['watch', '--checks', '-1']),
      '--checks must be a whole number from 1 to 1000000000 (got -1)',
    );
  });

  it('an unknown flag and a missing value in kubectl words', () => {
    assert.equal(
      usageError(['check', '--bogus']),
      'unknown flag: --bogus (see lease-watchdog --help)',
    );
    assert.equal(
      usageError(['check', '--grace-period']),
      'flag needs an argument: --grace-period (see lease-watchdog --help)',
    );
  });
});

describe('--help, as kubectl answers it', () => {
  const helpOf = (argv: string[]) => {
    const command = parseCli(argv);
    assert.equal(command.kind, 'help');
    return command.kind === 'help' ? command.text : '';
  };

  it('check --help is the help of check: its usage line and its options, no watch option', () => {
    const text = helpOf(['check', '--help']);
    assert.match(text, /^Usage:\n {2}lease-watchdog check \[options\]/);
    assert.doesNotMatch(text, /lease-watchdog watch|--interval|--state-file|watch only/);
    assert.match(text, /--grace-period S/);
  });

  it('watch --help is the help of watch, its own options included', () => {
    const text = helpOf(['watch', '-h']);
    assert.match(text, /^Usage:\n {2}lease-watchdog watch \[options\]/);
    assert.doesNotMatch(text, /lease-watchdog check \[options\]/);
    assert.match(text, /--interval S/);
    assert.match(text, /--grace-period S/);
  });

  it('--help alone is the whole help', () => {
    const text = helpOf(['--help']);
    assert.match(text, /lease-watchdog check \[options\][\s\S]*lease-watchdog watch \[options\]/);
    assert.match(text, /watch only:/);
  });
});
