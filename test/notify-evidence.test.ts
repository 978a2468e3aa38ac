/**
 * What the email and the JSON document say beyond the node lists: the evidence of a FIRING
 * (sanitised, bounded, one line per source not read), the cluster's AWS account and region, the
 * runbook, the short notification id; and the use case that gathers the evidence (FIRING only, at
 * most EVIDENCE_MAX_NODES nodes, never past its budget).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { renderDocument } from '../lambda/adapters/notify/render/document.js';
import { renderBody } from '../lambda/adapters/notify/render/render.js';
import type { AlertNode } from '../lambda/core/notification.js';
import { awsPlaceOf } from '../lambda/handler/cluster-places.js';
import { EvidenceReadError, type EvidenceReader } from '../lambda/ports/index.js';
import { EVIDENCE_MAX_NODES, withEvidence } from '../lambda/use-cases/alert-evidence.js';
import { assertValidDocument } from '../testkit/notification-schema.js';
import { AT, alertNode, eksName, notification } from '../testkit/notifications.js';

const LONG_ID = 'a1b2c3d4'.repeat(8);
const down = alertNode(eksName(1, 5), { instance: 'i-0abc1234567890def', zone: 'eu-west-1a' });

describe('the email around the node lists', () => {
  it('names the notification by 8 characters; the document keeps the whole id', () => {
    const n = notification({ id: LONG_ID, firing: [down] });
    const body = renderBody(n);
    assert.ok(body.endsWith('-- lease-watchdog, notification a1b2c3d4'), body.slice(-80));
    assert.ok(!body.includes(LONG_ID), 'the 64 characters are not in what people read');
    assert.equal(renderDocument(n).id, LONG_ID);
  });

  it('an eks cluster: account and region once; the runbook in the email and the document', () => {
    const n = notification({ firing: [down] });
    const runbookUrl = 'https://wiki.example.com/runbooks/node-down';
    const body = renderBody(n, {
      aws: { account: '123456789012', region: 'eu-west-1' },
      runbookUrl,
    });
    assert.match(body, /^AWS: +account 123456789012, region eu-west-1$/m);
    assert.match(body, /^Runbook: +https:\/\/wiki\.example\.com\/runbooks\/node-down$/m);
    const document = renderDocument(n, { runbookUrl });
    assert.equal(document.runbookUrl, runbookUrl);
    assertValidDocument(document);
    assert.equal(renderDocument(n).runbookUrl, undefined, 'absent without one');
  });

  it("an eks cluster's place: its region (else the function's) and the function's account", () => {
    const eks = { auth: { mode: 'eks', clusterName: 'prod' } } as const;
    assert.deepEqual(awsPlaceOf(eks, 'us-east-1', '123456789012'), {
      region: 'us-east-1',
      account: '123456789012',
    });
    assert.deepEqual(
      awsPlaceOf({ auth: { ...eks.auth, region: 'eu-west-1' } }, 'us-east-1', undefined),
      { region: 'eu-west-1' },
    );
    // In another account: the account of the role it is read through, not the function's.
    const roleArn = 'arn:aws:iam::210987654321:role/lease-watchdog-reader';
    assert.deepEqual(awsPlaceOf({ auth: { ...eks.auth, roleArn } }, 'us-east-1', '123456789012'), {
      region: 'us-east-1',
      account: '210987654321',
    });
    const token = { auth: { mode: 'token', server: 'https://k', tokenSecretId: 's' } } as const;
    assert.equal(awsPlaceOf(token, 'us-east-1', '123456789012'), undefined);
  });

  it("other clusters: the region of the nodes' zones, the account not guessed; nothing for non-EC2 nodes", () => {
    assert.match(
      renderBody(notification({ firing: [down] })),
      /^AWS: +account unknown, region eu-west-1 \(from the nodes' zones\)$/m,
    );
    const gke = alertNode('gke-pool-1', { instance: 'gke-pool-1-abcd', zone: 'europe-west1-b' });
    const body = renderBody(notification({ firing: [gke] }));
    assert.doesNotMatch(body, /^AWS:/m);
    assert.doesNotMatch(body, /aws ec2|aws ssm/);
  });

  it('evidence: hostile strings from the cluster and EC2 are cleaned and cut', () => {
    const n = notification({
      firing: [down],
      evidence: {
        nodes: [
          {
            node: down.name,
            instance: {
              instanceId: 'i-0abc1234567890def',
              region: 'eu-west-1',
              state: 'stopped\u202e\u0007',
              stateReason: `Server.SpotInstanceTermination: ${'x'.repeat(500)}`,
              scheduledEvents: [],
            },
            events: [
              {
                type: 'Warning',
                reason: 'Evil\u001b[31m',
                message: `line one\nline two\u200b ${'y'.repeat(1000)}`,
                count: 3,
                lastSeen: new Date(AT - 90_000).toISOString(),
              },
            ],
          },
        ],
        unread: ['Kubernetes Events not read: no answer within 2s'],
      },
    });
    const body = renderBody(n);
    const section = body.slice(
      body.indexOf('EVIDENCE AT ALERT TIME'),
      body.indexOf('What happens next'),
    );
    const unsafe = [...section].filter((c) => {
      const code = c.codePointAt(0) ?? 0;
      return (code < 0x20 && c !== '\n') || code === 0x7f || c === '\u200b' || c === '\u202e';
    });
    assert.deepEqual(unsafe, []);
    assert.match(
      section,
      /EC2: +i-0abc1234567890def in eu-west-1: stopped \(Server\.SpotInstanceTermination: x+…\)/,
    );
    assert.match(
      section,
      /events: +2026-11-29 17:53:30 UTC \(90s ago\) Warning Evil\[31m \(x3\): line one line two y+…/,
    );
    for (const line of section.split('\n')) assert.ok(line.length < 400, `bounded: ${line.length}`);
    assert.match(section, /^Kubernetes Events not read: no answer within 2s$/m);
  });
});

/** A reader that answers each node with `events` after `delayMs`, or never (`Infinity`). */
function reader(what: string, delayMs: number, seen: string[][] = []): EvidenceReader {
  return {
    what,
    read(nodes, signal) {
      seen.push(nodes.map((x) => x.name));
      return new Promise((resolve, reject) => {
        const answer = () => resolve(nodes.map((x) => ({ node: x.name, events: [] })));
        if (Number.isFinite(delayMs)) setTimeout(answer, delayMs);
        signal.addEventListener('abort', () => reject(new EvidenceReadError('aborted')));
      });
    },
  };
}

describe('gathering the evidence of a FIRING', () => {
  const many: AlertNode[] = Array.from({ length: 8 }, (_, i) => alertNode(eksName(1, i + 1)));

  it('asks about the first few nodes of a FIRING only', async () => {
    const seen: string[][] = [];
    const firing = await withEvidence(
      notification({ firing: many }),
      [reader('E', 0, seen)],
      1_000,
    );
    assert.deepEqual(seen, [many.slice(0, EVIDENCE_MAX_NODES).map((x) => x.name)]);
    assert.equal(firing.evidence?.nodes.length, EVIDENCE_MAX_NODES);
    const reminder = notification({ kind: 'REMINDER', firing: [], reminders: many });
    assert.equal(await withEvidence(reminder, [reader('E', 0, seen)], 1_000), reminder);
    assert.equal(seen.length, 1, 'a REMINDER asks nothing');
  });

  it('a source that never answers is given up at the budget with one line; the others are kept', async () => {
    const n = notification({ firing: [down] });
    let timer: NodeJS.Timeout | undefined;
    const slowest = new Promise<'budget'>((resolve) => {
      timer = setTimeout(() => resolve('budget'), 5_000);
    });
    const gathered = withEvidence(
      n,
      [reader('EC2 state', Infinity), reader('Kubernetes Events', 0)],
      100,
    );
    // Ordering, not wall time: the evidence settles long before a 5 s timer would (cleared
    // then, or it would hold the file's process for 5 s after its last test).
    try {
      assert.notEqual(await Promise.race([gathered, slowest]), 'budget');
    } finally {
      clearTimeout(timer);
    }
    const { evidence } = await gathered;
    assert.deepEqual(evidence?.unread, ['EC2 state not read: no answer within 0.1s']);
    assert.deepEqual(evidence?.nodes, [{ node: down.name, events: [] }]);
  });

  it('a failing source is one line with its reason; an unexpected error is named, not quoted', async () => {
    const failing = (what: string, error: unknown): EvidenceReader => ({
      what,
      read: () => Promise.reject(error),
    });
    const { evidence } = await withEvidence(
      notification({ firing: [down] }),
      [
        failing(
          'EC2 state',
          new EvidenceReadError('UnauthorizedOperation (grant ec2:DescribeInstanceStatus)'),
        ),
        failing('Kubernetes Events', new TypeError('token=s3cr3t')),
      ],
      1_000,
    );
    assert.deepEqual(evidence?.unread, [
      'EC2 state not read: UnauthorizedOperation (grant ec2:DescribeInstanceStatus)',
      'Kubernetes Events not read: unexpected error (TypeError)',
    ]);
  });
});
