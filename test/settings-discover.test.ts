/**
 * The `discover` section of the deployment file and a discovered cluster's settings from its tags:
 * validated with the file's one-line messages, the tag filter, and a bad tag said, never a crash.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { discoveredSettings, matchesTags } from '../lambda/settings/discovery.js';
import { parseAppConfig, parseWatchdogSettings } from '../lambda/settings/index.js';

const ROLE = 'arn:aws:iam::210987654321:role/lease-watchdog-discovery';
const file = (discover: unknown, more: Record<string, unknown> = {}) => ({
  emails: ['oncall@example.org'],
  discover,
  ...more,
});

describe('the discover section', () => {
  test('discovery alone is a deployment: no listed cluster needed, the defaults filled in', () => {
    const config = parseAppConfig(
      file({
        regions: ['eu-west-1'],
        accounts: [{ roleArn: ROLE }],
        tags: { 'lease-watchdog': 'on' },
      }),
    );
    assert.deepEqual(config.clusters, []);
    assert.deepEqual(config.discover, {
      regions: ['eu-west-1'],
      accounts: [{ roleArn: ROLE }],
      tags: { 'lease-watchdog': 'on' },
      grantAccess: false,
      everyMinutes: 5,
    });
    // The function gets it, as it gets every watchdog setting.
    const settings = parseWatchdogSettings({ discover: { regions: ['us-east-1'] } });
    assert.deepEqual(settings.clusters, []);
    assert.equal(settings.discover?.regions[0], 'us-east-1');
  });

  const invalid: [string, unknown, string][] = [
    [
      'no regions',
      { regions: [] },
      'discover.regions must be a list of 1 to 30, e.g. ["eu-west-1"] (got [])',
    ],
    [
      'a bad region',
      { regions: ['europe'] },
      'discover.regions[0] must be an AWS region like eu-west-1 (got "europe")',
    ],
    [
      'a bad role',
      { regions: ['eu-west-1'], accounts: [{ roleArn: 'role/x' }] },
      'discover.accounts[0].roleArn must be an IAM role ARN like arn:aws:iam::210987654321:role/lease-watchdog-discovery (got "role/x")',
    ],
    [
      "AWS's own tag",
      { regions: ['eu-west-1'], tags: { 'aws:cloudformation:stack-name': 'x' } },
      'discover.tags has the tag key "aws:cloudformation:stack-name": a tag key is 1-128 letters, digits, spaces or + - = . _ : / @, not starting with aws:',
    ],
    [
      'a value no tag can hold',
      { regions: ['eu-west-1'], excludeTags: { 'lease-watchdog': 'off!' } },
      'discover.excludeTags has the value "off!" for tag "lease-watchdog": a tag value is 0-256 letters, digits, spaces or + - = . _ : / @',
    ],
    [
      'a typo',
      { regions: ['eu-west-1'], tag: {} },
      'discover.tag is not a known setting; remove it or use one of: regions, accounts, tags, excludeTags, grantAccess, everyMinutes',
    ],
    [
      'too often',
      { regions: ['eu-west-1'], everyMinutes: 0 },
      'discover.everyMinutes must be a whole number from 1 to 60 (got 0); how often discovery runs',
    ],
  ];
  for (const [name, discover, message] of invalid) {
    test(`refuses ${name} in one line`, () => {
      assert.throws(() => parseAppConfig(file(discover)), { name: 'ConfigError', message });
    });
  }
});

describe('which clusters match, and their settings from tags', () => {
  test('every tag of `tags`, none of `excludeTags`', () => {
    const on = { tags: { 'lease-watchdog': 'on' } };
    assert.equal(matchesTags(on, { 'lease-watchdog': 'on', team: 'a' }), true);
    assert.equal(matchesTags(on, { 'lease-watchdog': 'ON' }), false);
    assert.equal(matchesTags(on, {}), false);
    const notOff = { excludeTags: { 'lease-watchdog': 'off' } };
    assert.equal(matchesTags(notOff, {}), true);
    assert.equal(matchesTags(notOff, { 'lease-watchdog': 'off' }), false);
    assert.equal(matchesTags({}, {}), true);
  });

  test("a cluster's tags set its settings, validated as a listed cluster's; a bad one is said and left out", () => {
    const { settings, tagProblems } = discoveredSettings({
      clusterName: 'payments-1',
      region: 'eu-west-1',
      roleArn: ROLE,
      tags: {
        'lease-watchdog/namespace': 'leases',
        'lease-watchdog/exclude-selector': 'pool=batch',
        'lease-watchdog/runbook-url': 'http://wiki.example.com/node-down',
      },
    });
    assert.deepEqual(settings, {
      name: 'payments-1',
      auth: { mode: 'eks', clusterName: 'payments-1', region: 'eu-west-1', roleArn: ROLE },
      namespace: 'leases',
      excludeSelector: 'pool=batch',
    });
    assert.deepEqual(tagProblems, [
      'tag lease-watchdog/runbook-url must be an https:// URL of at most 1000 characters, e.g. https://wiki.example.com/runbooks/node-down (got "http://wiki.example.com/node-down")',
    ]);
  });

  test('lease-watchdog/name renames it (two regions may hold clusters of one name)', () => {
    const { settings } = discoveredSettings({
      clusterName: 'prod',
      region: 'us-east-1',
      tags: { 'lease-watchdog/name': 'prod-us' },
    });
    assert.equal(settings.name, 'prod-us');
    assert.equal(settings.auth.mode === 'eks' && settings.auth.clusterName, 'prod');
  });

  test("an exclude selector that matches every node is refused (a node without labels, or with the kubelet's own only)", () => {
    const problem = (selector: string) =>
      discoveredSettings({
        clusterName: 'c',
        region: 'eu-west-1',
        tags: { 'lease-watchdog/exclude-selector': selector },
      }).tagProblems;
    for (const everyNode of [
      '!lease-watchdog.io/watch',
      'kubernetes.io/hostname',
      'kubernetes.io/os!=windows',
    ]) {
      assert.deepEqual(
        problem(everyNode),
        [
          'tag lease-watchdog/exclude-selector excludes every node (it matches a Node with no labels but the kubelet\'s own), which turns paging off for the whole cluster: name the nodes to leave out, e.g. "role=batch,!critical"',
        ],
        everyNode,
      );
    }
    for (const some of ['pool=batch', 'role=batch,!critical', 'kubernetes.io/os=windows']) {
      assert.deepEqual(problem(some), [], some);
    }
  });
});
