/**
 * A node and its lease named with 1 MiB of characters, read by the handler createHandler builds
 * (the simulated cluster over HTTPS, dynalite, the local SNS server): checked, `invalid`, never
 * paged, and what it keeps and logs holds the cut name, never the megabyte.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { GetItemCommand } from '@aws-sdk/client-dynamodb';
import { partitionKey } from '../lambda/adapters/state/dynamodb/dynamodb-items.js';
import { type Harness, startWatchdogHarness, summary } from '../testkit/watchdog-harness.js';

const LONG = 'n'.repeat(1 << 20);

describe('lambda e2e: a name longer than Kubernetes allows', () => {
  let h: Harness;
  before(async () => {
    h = await startWatchdogHarness({ clusters: { prod: { nodes: 4 } } });
    h.target('prod').sim.addNode({ name: LONG, createdAt: h.clock.now() - 3600_000 });
  });
  after(() => h.close());

  it('is checked as invalid; the state and the logs keep its name cut; nothing pages', async () => {
    for (let i = 0; i < 3; i++) {
      const report = await (i === 0 ? h.run() : h.tick());
      assert.equal(report.clusters[0]?.lastStatus, 'checked');
    }
    assert.equal(h.sns.messages.length, 0, summary(h.messages()));
    const head = await h.dynamo.client.send(
      new GetItemCommand({
        TableName: h.tableName,
        Key: { pk: { S: partitionKey('prod') }, sk: { S: 'head' } },
        ConsistentRead: true,
      }),
    );
    const bytes = Number(head.Item?.bytes?.N);
    assert.ok(bytes > 0 && bytes < 10_000, `a state of ${bytes} bytes`);
    const logged = JSON.stringify(h.logger.entries);
    assert.ok(!logged.includes('n'.repeat(300)), `${logged.length} characters of logs`);
    const checked = h.logger.entries.find((e) => e.message === 'cluster checked');
    assert.ok(checked, 'a log line per check');
    assert.equal(
      JSON.stringify(checked.fields).includes('"invalid":1'),
      true,
      JSON.stringify(checked.fields),
    );
  });
});
