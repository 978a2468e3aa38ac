/**
 * The command checks its flags without the settings' schemas (lambda/settings/cli-flags.ts: it
 * starts faster without zod); the settings build their schemas from the same rules. These hold
 * the two together: every flag is a setting's, with its default, and the plain check answers as
 * the setting's schema does, word for word.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CLI_FLAGS, flagProblem } from '../lambda/settings/cli-flags.js';
import { allSettings } from '../lambda/settings/index.js';

/** Values of every kind a flag gets once read (durations and counts as numbers), good and bad. */
const SAMPLES: readonly unknown[] = [
  ...[0, 1, -5, 36, 59, 60, 300, 301, 3_600, 3_601, 86_400, 86_401, 604_800, 604_801],
  ...[0.5, 1.5, 1_000_000_000, 1_000_000_001, Number.MAX_SAFE_INTEGER + 2, 'abc', '2m'],
  ...['', ' x', 'x ', 'kube-node-lease', 'Bad_NS', 'pool=gpu', 'pool in (', '!spot', 'a b'],
  ...['arn:aws:sns:eu-west-1:123456789012:alerts', 'arn:aws:sns:eu-west-1:1:x'],
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a CDK token's encoding, not JavaScript's
  '${Token[X.1]}',
  ...['table', 'wide', 'json', 'yaml', 'xml', true, false],
];

const flagged = allSettings().filter((s) => s.cli !== undefined);

describe("the command's flags", () => {
  it('are the settings’ flags, each once, in the order --help shows them, with their defaults', () => {
    assert.deepEqual(
      flagged.map((s) => s.cli),
      Object.values(CLI_FLAGS),
    );
    for (const s of flagged) assert.equal(s.cli?.defaultValue, s.defaultValue, s.key);
  });

  it('are checked as their settings’ schemas check them, with the same messages', () => {
    for (const s of flagged) {
      const rule = s.cli?.rule;
      assert.ok(rule, s.key);
      for (const value of SAMPLES) {
        const result = s.schema.safeParse(value);
        const expected = result.success ? undefined : result.error.issues[0]?.message;
        const problem = flagProblem(rule, value);
        // The flag takes 1-59: the demo's compressed timings; the deployment file does not.
        const reminderOnly =
          s.key === 'reminderIntervalSeconds' && typeof value === 'number' && value < 60;
        if (reminderOnly && problem === undefined) continue;
        assert.equal(problem, expected, `${s.cli?.flag} ${JSON.stringify(value)}`);
      }
    }
  });
});
