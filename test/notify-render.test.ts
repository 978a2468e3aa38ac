import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  BODY_MAX_BYTES,
  renderBody,
  renderSubject,
  SUBJECT_MAX_CHARS,
  utc,
} from '../lambda/adapters/notify/render/render.js';
import {
  asciiText,
  cleanText,
  shellWord,
  truncate,
} from '../lambda/adapters/notify/render/text.js';
import type { StormInfo } from '../lambda/core/notification.js';
import {
  AT,
  alertNode,
  eksName,
  manyNodes,
  micro,
  notification,
} from '../testkit/notifications.js';

const two = [
  alertNode(eksName(1, 5), {
    zone: 'eu-west-1a',
    instance: 'i-0aaa1111',
    renewTime: micro(AT - 200_000),
    silentForSeconds: 200,
    since: AT - 150_000,
  }),
  alertNode(eksName(2, 7), {
    zone: 'eu-west-1b',
    instance: 'i-0bbb2222',
    verdict: 'not-ready',
    reason: 'Ready=False: KubeletNotReady (PLEG is not healthy)',
    renewTime: micro(AT - 8_000),
    silentForSeconds: 8,
  }),
];

/** Characters that must never reach a subject or a body line. */
const FORBIDDEN = /[\p{Cc}\u2028\u2029\u202a-\u202e\u2066-\u2069\u200b\ufeff]/u;

function bodyLinesOk(body: string): void {
  for (const line of body.split('\n')) {
    assert.doesNotMatch(
      line,
      FORBIDDEN,
      `forbidden character in body line ${JSON.stringify(line)}`,
    );
  }
}

describe('renderSubject', () => {
  const cases: Array<{ name: string; n: Parameters<typeof renderSubject>[0]; subject: string }> = [
    {
      name: 'FIRING with two nodes names the count and short names',
      n: notification({ firing: two }),
      subject: '[prod-eu] FIRING: 2 nodes down (ip-10-0-1-5..., ip-10-0-2-7...)',
    },
    {
      name: 'FIRING with one node is singular',
      n: notification({ firing: [alertNode('worker-1')] }),
      subject: '[prod-eu] FIRING: 1 node down (worker-1)',
    },
    {
      name: 'RESOLVED counts recovered nodes',
      n: notification({
        kind: 'RESOLVED',
        severity: 'info',
        resolved: ['a', 'b', 'c'].map((x) => alertNode(x, { resolution: 'recovered' })),
      }),
      subject: '[prod-eu] RESOLVED: 3 nodes recovered (a, b, c)',
    },
    {
      name: 'RESOLVED by expected removal says removed',
      n: notification({
        kind: 'RESOLVED',
        severity: 'info',
        resolved: [alertNode('a', { resolution: 'node-deleted' })],
      }),
      subject: '[prod-eu] RESOLVED: 1 node removed (a)',
    },
    {
      name: 'mixed FIRING and RESOLVED says both',
      n: notification({ firing: two, resolved: [alertNode('c', { resolution: 'recovered' })] }),
      subject: '[prod-eu] FIRING: 2 down, 1 recovered (ip-10-0-1-5..., ip-10-0-2-7...)',
    },
    {
      name: 'REMINDER',
      n: notification({ kind: 'REMINDER', reminders: [alertNode('worker-1')] }),
      subject: '[prod-eu] REMINDER: 1 node still down (worker-1)',
    },
    {
      name: 'FLAPPING',
      n: notification({ kind: 'FLAPPING', severity: 'warning', flapping: two }),
      subject: '[prod-eu] FLAPPING: 2 nodes flapping (ip-10-0-1-5..., ip-10-0-2-7...)',
    },
    {
      name: 'STORM in one zone',
      n: notification({
        kind: 'STORM',
        firing: manyNodes(14),
        storm: {
          scope: 'zone',
          zones: [{ zone: 'eu-west-1a', total: 20, silent: 14 }],
          clusterTotal: 60,
          clusterSilent: 14,
        },
      }),
      subject: '[prod-eu] STORM: 14 of 20 nodes silent in eu-west-1a',
    },
    {
      name: 'STORM cluster-wide',
      n: notification({
        kind: 'STORM',
        firing: manyNodes(1500),
        storm: {
          scope: 'cluster',
          zones: [{ zone: 'eu-west-1a', total: 2000, silent: 1500 }],
          clusterTotal: 2000,
          clusterSilent: 1500,
        },
      }),
      subject: '[prod-eu] STORM: 1,500 of 2,000 nodes silent cluster-wide',
    },
    {
      name: 'WATCHDOG failing',
      n: notification({
        kind: 'WATCHDOG',
        watchdog: {
          state: 'failing',
          failure: 'forbidden',
          message: 'cannot list leases: 403 Forbidden',
          since: AT - 725_000,
        },
      }),
      subject: '[prod-eu] WATCHDOG: cannot read cluster (forbidden)',
    },
    {
      name: 'WATCHDOG resolved',
      n: notification({
        kind: 'WATCHDOG',
        severity: 'info',
        watchdog: { state: 'resolved', failure: 'timeout', message: 'timed out', since: AT - 1 },
      }),
      subject: '[prod-eu] WATCHDOG RESOLVED: cluster readable again',
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      assert.equal(renderSubject(c.n), c.subject);
    });
  }

  it('lists as many names as fit, then +N more, within 99 characters', () => {
    const subject = renderSubject(notification({ firing: manyNodes(30) }));
    assert.ok(subject.length <= SUBJECT_MAX_CHARS, subject);
    assert.match(
      subject,
      /^\[prod-eu\] FIRING: 30 nodes down \(ip-10-0-0-0\.\.\., .*, \+\d+ more\)$/,
    );
    const shown = subject.split(', ').length - 1;
    assert.match(subject, new RegExp(`\\+${30 - shown} more\\)$`));
  });

  const hostile: Array<[string, string]> = [
    ['newline', 'ip-10-0-1-5\nBcc: victim@example.com'],
    ['carriage return', 'ip-10-0-1-5\r\nX-Injected: 1'],
    ['NUL', 'ip-10-0-1-5\u0000evil'],
    ['ESC sequence', '\u001b[31mred\u001b[0m'],
    ['RTL override', 'node-\u202egnp.exe'],
    ['300 characters', 'n'.repeat(300)],
    ['emoji', '🔥node-💀-👨‍👩‍👧'],
    ['non-ASCII', 'nœud-été-ノード'],
    ['only controls', '\u0000\u0001\n\r\t'],
    ['line separator', 'a\u2028b\u2029c'],
    ['leading space', '   leading'],
    ['lone surrogate', 'x\ud800y'],
  ];
  for (const [label, name] of hostile) {
    it(`hostile node name (${label}) keeps the subject one short ASCII line`, () => {
      const n = notification({ cluster: name, firing: [alertNode(name), alertNode(name)] });
      const subject = renderSubject(n);
      assert.ok(subject.length <= SUBJECT_MAX_CHARS, `${subject.length}: ${subject}`);
      assert.match(subject, /^\[[\x20-\x7e]*$/);
      assert.match(subject, /FIRING: 2 nodes down/);
      const body = renderBody(n);
      bodyLinesOk(body);
    });
  }

  it('a 300-character cluster name still leaves room for kind and count', () => {
    const subject = renderSubject(notification({ cluster: 'c'.repeat(300), firing: two }));
    assert.ok(subject.length <= SUBJECT_MAX_CHARS);
    assert.match(subject, /^\[c+\.\.\.\] FIRING: 2 nodes down/);
  });

  it('an empty cluster name is named anyway', () => {
    assert.match(
      renderSubject(notification({ cluster: '\n', firing: two })),
      /^\[unnamed cluster\]/,
    );
  });
});

describe('renderBody', () => {
  it('FIRING: cluster, UTC time, summary, per-node details, what happens next, commands', () => {
    const body = renderBody(notification({ firing: two }));
    assert.match(body, /^Cluster: +prod-eu$/m);
    assert.match(body, /^Checked: +2026-11-29 17:55:00 UTC$/m);
    assert.match(body, /^Summary: +2 nodes down\.$/m);
    assert.match(body, /^FIRING: 2 nodes down$/m);
    // first node, in full
    assert.match(body, /^ip-10-0-1-5\.eu-west-1\.compute\.internal$/m);
    assert.match(body, /^ {2}zone: +eu-west-1a$/m);
    assert.match(body, /^ {2}instance: +i-0aaa1111$/m);
    assert.match(body, /^ {2}verdict: +expired \(/m);
    assert.match(body, /^ {2}last renewal: +2026-11-29 17:51:40 UTC \(3m20s ago\)$/m);
    assert.match(body, /^ {2}reason: +lease not renewed for 200 s/m);
    // One clock, one number: the silence the reason times is the age of the renewal and of the
    // node being down (its incident opened later, when the silence was confirmed).
    assert.match(body, /^ {2}down since: +2026-11-29 17:51:40 UTC \(3m20s ago\)$/m);
    // second node
    assert.match(body, /^ {2}verdict: +not-ready/m);
    assert.match(body, /^ {2}last renewal: +2026-11-29 17:54:52 UTC \(8s ago\)$/m);
    // commands, once per email, about the first node
    assert.equal(body.match(/look further/gi)?.length, 1, 'said once');
    assert.match(body, /^Look further$/m);
    const first = eksName(1, 5);
    assert.ok(body.includes(`  kubectl --context prod-eu describe node ${first}\n`), first);
    assert.ok(
      body.includes(`  kubectl --context prod-eu get lease ${first} -n kube-node-lease -o yaml\n`),
      first,
    );
    // Kubernetes' next steps
    assert.match(body, /^What happens next in Kubernetes$/m);
    assert.match(body, /NotReady\/Unknown/);
    assert.match(body, /node\.kubernetes\.io\/unreachable:NoExecute/);
    assert.match(body, /node\.kubernetes\.io\/not-ready:NoExecute/);
    assert.match(body, /300s by\s+default/);
    bodyLinesOk(body);
  });

  it('per node: node group, instance type and capacity type beside zone and instance', () => {
    const body = renderBody(
      notification({
        firing: [
          alertNode('a', {
            zone: 'eu-west-1a',
            instance: 'i-0123456789abcdef0',
            nodeGroup: 'gpu\u202e-pool\u0007',
            instanceType: 'g5.2xlarge',
            capacityType: 'spot',
          }),
          alertNode('b', { instance: 'i-0fedcba9876543210', instanceType: 'm6i.large' }),
        ],
      }),
    );
    const block = (name: string) => body.slice(body.indexOf(`\n${name}\n`)).split('\n\n')[0] ?? '';
    assert.match(
      block('a'),
      /\n {2}zone: +eu-west-1a\n {2}instance: +i-0123456789abcdef0\n {2}node group: +gpu-pool\n {2}instance type: +g5\.2xlarge\n {2}capacity type: +spot\n/,
    );
    // a fact the node does not carry is left out, not shown as unknown
    assert.match(
      block('b'),
      /\n {2}instance: +i-0fedcba9876543210\n {2}instance type: +m6i\.large\n {2}verdict:/,
    );
    assert.doesNotMatch(block('b'), /node group|capacity type/);
    bodyLinesOk(body);
  });

  it('says every time one way: a moment with its age, a stretch with its length', () => {
    const moment = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC \((\d+[smhdy])+ ago\)$/;
    const stretch =
      /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC to \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC \((\d+[smhdy])+\)$/;
    const bodies = [
      renderBody(notification({ firing: two })),
      renderBody(
        notification({
          kind: 'RESOLVED',
          severity: 'info',
          resolved: [alertNode('a', { verdict: 'healthy', since: AT - 600_000 })],
        }),
      ),
      renderBody(
        notification({
          kind: 'NOTICE',
          severity: 'warning',
          notice: { topic: 'degraded', state: 'started', message: 'forbidden', since: AT - 90_000 },
        }),
      ),
      renderBody(
        notification({
          kind: 'NOTICE',
          severity: 'info',
          notice: { topic: 'degraded', state: 'ended', message: 'forbidden', since: AT - 90_000 },
        }),
      ),
    ];
    const values = (label: string) =>
      bodies.flatMap((b) =>
        [...b.matchAll(new RegExp(`^ *${label}: +(.*)$`, 'gm'))].map((m) => m[1] ?? ''),
      );
    for (const label of ['last renewal', 'down since', 'Since']) {
      assert.ok(values(label).length > 0, label);
      for (const v of values(label)) assert.match(v, moment, `${label}: ${v}`);
    }
    for (const label of ['was down', 'From']) {
      assert.ok(values(label).length > 0, label);
      for (const v of values(label)) assert.match(v, stretch, `${label}: ${v}`);
    }
    assert.match(bodies[2] ?? '', /^Since: +2026-11-29 17:53:30 UTC \(90s ago\)$/m);
    // seconds are written as kubectl writes them, never `50 s` (reasons are the fixture's text)
    for (const b of bodies) assert.doesNotMatch(b.replace(/^ {2}reason:.*$/gm, ''), /\d s\b/);
  });

  it('kubectl hints name the lease namespace of the render context', () => {
    const firingBody = renderBody(notification({ firing: two }), { namespace: 'leases-prod' });
    assert.ok(
      firingBody.includes(
        `kubectl --context prod-eu get lease ${eksName(1, 5)} -n leases-prod -o yaml\n`,
      ),
    );
    assert.doesNotMatch(firingBody, /kube-node-lease/);
    const watchdog = renderBody(
      notification({
        kind: 'WATCHDOG',
        watchdog: { state: 'failing', failure: 'forbidden', message: '403', since: AT - 60_000 },
      }),
      { namespace: 'leases-prod' },
    );
    const flat = watchdog.replace(/\s+/g, ' ');
    assert.match(flat, /grants get and list on leases in leases-prod and on nodes/);
    assert.match(flat, /kubectl --context prod-eu auth can-i list leases -n leases-prod --as/);
    assert.match(watchdog, /^ {2}kubectl --context prod-eu get leases -n leases-prod$/m);
    assert.doesNotMatch(watchdog, /kube-node-lease/);
    const notFound = renderBody(
      notification({
        kind: 'WATCHDOG',
        watchdog: { state: 'failing', failure: 'not-found', message: '404', since: AT - 60_000 },
      }),
      { namespace: 'leases-prod' },
    );
    assert.match(notFound.replace(/\s+/g, ' '), /the watchdog reads leases-prod in this cluster/);
  });

  it('the commands name the kubeconfig context the cluster settings give', () => {
    const body = renderBody(notification({ firing: two }), { kube: { context: 'prod-eu-admin' } });
    const first = eksName(1, 5);
    const block = body.slice(body.indexOf('Look further\n')).split('\n\n')[0];
    assert.equal(
      block,
      [
        'Look further',
        '  kubectl --context prod-eu-admin get nodes -o wide',
        `  kubectl --context prod-eu-admin describe node ${first}`,
        `  kubectl --context prod-eu-admin get lease ${first} -n kube-node-lease -o yaml`,
        `  kubectl --context prod-eu-admin get events -A --field-selector involvedObject.name=${first}`,
        // An EC2 node: its status and a shell on it, in the region of its zone.
        '  aws ec2 describe-instance-status --instance-ids i-0aaa1111 --include-all-instances --region eu-west-1',
        '  aws ssm start-session --target i-0aaa1111 --region eu-west-1',
      ].join('\n'),
    );
    // a hostile context is quoted, on one line
    const hostile = renderBody(notification({ firing: two }), {
      kube: { context: 'x; rm -rf /\n$(id)' },
    });
    assert.match(hostile, /^ {2}kubectl --context 'x; rm -rf \/ \$\(id\)' get nodes -o wide$/m);
    bodyLinesOk(hostile);
  });

  it('for EKS the commands start with the aws eks update-kubeconfig that makes the context', () => {
    const watchdog = notification({
      kind: 'WATCHDOG',
      watchdog: { state: 'failing', failure: 'forbidden', message: 'nope', since: AT - 60_000 },
    });
    const body = renderBody(watchdog, {
      kube: { eks: { clusterName: 'prod-eu', region: 'eu-west-1' } },
    });
    const block = body.slice(body.indexOf('Look further\n')).split('\n\n')[0];
    assert.equal(
      block,
      [
        'Look further',
        '  aws eks update-kubeconfig --name prod-eu --region eu-west-1 --alias prod-eu',
        "  kubectl --context prod-eu get --raw '/readyz?verbose'",
        '  kubectl --context prod-eu get leases -n kube-node-lease',
        '  kubectl --context prod-eu get nodes -o wide',
      ].join('\n'),
    );
    assert.equal(body.match(/aws eks update-kubeconfig/g)?.length, 1, 'said once');
    // no region in the settings: the reader's default region
    const noRegion = renderBody(watchdog, { kube: { eks: { clusterName: 'prod-eu' } } });
    assert.match(noRegion, /^ {2}aws eks update-kubeconfig --name prod-eu --alias prod-eu$/m);
    // Without settings (a bearer token): the cluster's name stands for the reader's context, and
    // a comment line (inert in a shell) says so and how to list one's contexts.
    const unknown = renderBody(watchdog);
    assert.match(unknown, /^ {2}kubectl --context prod-eu get nodes -o wide$/m);
    assert.match(
      unknown,
      /^Look further\n {2}# prod-eu: your kubeconfig context for this cluster \(kubectl config get-contexts\)$/m,
    );
  });

  it('a hostile namespace is quoted in commands and kube-node-lease is the default', () => {
    const body = renderBody(notification({ firing: two }), { namespace: "x'; rm -rf /" });
    assert.ok(body.includes(`-n 'x'\\''; rm -rf /' -o yaml\n`), body);
    assert.equal(
      renderBody(notification({ firing: two }), { namespace: 'kube-node-lease' }),
      renderBody(notification({ firing: two })),
    );
  });

  it('ages are computed from the check time, not the wall clock', () => {
    const at = Date.UTC(2001, 0, 1, 0, 0, 0);
    const n = notification({
      at,
      firing: [alertNode('a', { renewTime: micro(at - 3_725_000), silentForSeconds: 3725 })],
    });
    assert.match(renderBody(n), /last renewal: +2000-12-31 22:57:55 UTC \(62m ago\)$/m);
  });

  it('says when the node clock disagrees with the watchdog clock', () => {
    const n = notification({
      firing: [alertNode('a', { renewTime: micro(AT + 20_000), silentForSeconds: 120 })],
    });
    const body = renderBody(n);
    // The renewal on the watchdog's clock, the silence's one number; renewTime as an instant.
    assert.match(body, /^ {2}last renewal: +2026-11-29 17:53:00 UTC \(2m ago\)$/m);
    assert.match(
      body,
      /^ {2}node's clock: +renewTime reads 2026-11-29 17:55:20 UTC: the node's clock seems 2m20s ahead$/m,
    );
    // A node gone from the cluster has no measured silence: renewTime as the kubelet wrote it.
    const gone = renderBody(
      notification({
        kind: 'RESOLVED',
        resolved: [
          alertNode('a', {
            renewTime: micro(AT + 20_000),
            silentForSeconds: null,
            resolution: 'node-deleted',
          }),
        ],
      }),
    );
    assert.match(gone, /20s in the future: the node's clock is ahead/);
  });

  it('a correct clock seen one gap between checks late is not called off; a clock 10m behind is', () => {
    // The watchdog times silence from the check that first saw the renewal: up to ~2 min later.
    const late = renderBody(
      notification({
        firing: [alertNode('a', { renewTime: micro(AT - 170_000), silentForSeconds: 60 })],
      }),
    );
    assert.doesNotMatch(late, /node's clock:/);
    const behind = renderBody(
      notification({
        firing: [alertNode('a', { renewTime: micro(AT - 660_000), silentForSeconds: 60 })],
      }),
    );
    assert.match(behind, /^ {2}last renewal: +2026-11-29 17:54:00 UTC \(60s ago\)$/m);
    assert.match(
      behind,
      /^ {2}node's clock: +renewTime reads 2026-11-29 17:44:00 UTC: the node's clock seems 10m behind$/m,
    );
  });

  it('never-renewed and unreadable renew times', () => {
    const body = renderBody(
      notification({
        firing: [
          alertNode('a', { renewTime: null, silentForSeconds: null, verdict: 'missing-lease' }),
          alertNode('b', { renewTime: 'yesterday\u0007', silentForSeconds: null }),
        ],
      }),
    );
    assert.match(body, /last renewal: +never$/m);
    assert.match(body, /last renewal: +yesterday \(unreadable\)$/m);
    bodyLinesOk(body);
  });

  it('RESOLVED: resolution and how long it was down; no eviction story', () => {
    const body = renderBody(
      notification({
        kind: 'RESOLVED',
        severity: 'info',
        resolved: [
          alertNode('a', { verdict: 'healthy', resolution: 'recovered', since: AT - 600_000 }),
          alertNode('b', { verdict: 'suppressed', resolution: 'cordoned' }),
        ],
      }),
    );
    assert.match(body, /^RESOLVED: 2 nodes resolved$/m);
    assert.match(body, /resolution: +recovered: the lease is renewing again$/m);
    assert.match(body, /was down: +2026-11-29 17:45:00 UTC to 2026-11-29 17:55:00 UTC \(10m\)$/m);
    assert.match(body, /resolution: +cordoned \(spec\.unschedulable\)/m);
    assert.doesNotMatch(body, /What happens next/);
    assert.match(body, /kubectl --context prod-eu describe node a$/m);
  });

  it('REMINDER and FLAPPING sections', () => {
    const body = renderBody(
      notification({
        kind: 'FIRING',
        firing: [alertNode('f')],
        reminders: [alertNode('r')],
        flapping: [alertNode('x')],
      }),
    );
    assert.match(body, /^FIRING: 1 node down$/m);
    assert.match(body, /^REMINDER: 1 node still down$/m);
    assert.match(body, /^FLAPPING: 1 node going down and up$/m);
    assert.ok(body.indexOf('FIRING: 1') < body.indexOf('REMINDER: 1'));
    assert.ok(body.indexOf('REMINDER: 1') < body.indexOf('FLAPPING: 1'));
  });

  it('STORM: zone counts, likely cause, nodes listed compactly', () => {
    const nodes = manyNodes(14);
    const body = renderBody(
      notification({
        kind: 'STORM',
        firing: nodes,
        storm: {
          scope: 'zone',
          zones: [{ zone: 'eu-west-1a', total: 20, silent: 14 }],
          clusterTotal: 60,
          clusterSilent: 14,
        },
      }),
    );
    assert.match(body, /^STORM: 14 of 20 nodes silent in eu-west-1a$/m);
    assert.match(
      body.replace(/\s+/g, ' '),
      /likely cause is the network or the control plane, not the nodes/,
    );
    assert.match(body, /^ {2}eu-west-1a +14 +20 \(70 %\)$/m);
    assert.match(body, /^ {2}cluster +14 +60$/m);
    assert.match(body, /^ {2}eu-west-1a \(14\):$/m);
    const nameLines = body.split('\n').filter((l) => /^ {4}ip-10-0-/.test(l));
    assert.ok(nameLines.length >= 2 && nameLines.length < 14, `${nameLines.length} name lines`);
    for (const line of nameLines) assert.ok(line.length <= 78, line);
    assert.match(body, /^ {2}\(every name below ends in \.eu-west-1\.compute\.internal\)$/m);
    const listed = nameLines.flatMap((l) => l.trim().split(', '));
    assert.deepEqual(
      listed.map((x) => `${x}.eu-west-1.compute.internal`),
      nodes.map((x) => x.name),
    );
    assert.doesNotMatch(body, /^ {2}verdict:/m, 'no per-node blocks in a storm');
    assert.match(body, /55 % of nodes are unhealthy/);
  });

  it('STORM by node group: a count and a fraction per node group, what to check', () => {
    const nodes = manyNodes(3).map((x) => ({ ...x, nodeGroup: 'gpu-a10g' }));
    const storm = {
      scope: 'node-group' as const,
      zones: [],
      nodeGroups: [{ nodeGroup: 'gpu-a10g', total: 4, silent: 3 }],
      clusterTotal: 60,
      clusterSilent: 3,
    };
    const n = notification({ kind: 'STORM', firing: nodes, storm });
    const body = renderBody(n);
    assert.equal(renderSubject(n), '[prod-eu] STORM: 3 of 4 nodes silent in node group gpu-a10g');
    assert.match(body, /^STORM: 3 of 4 nodes silent in node group gpu-a10g$/m);
    assert.match(body, /^ {2}node group +silent +total$/m);
    assert.match(body, /^ {2}gpu-a10g +3 +4 \(75 %\)$/m);
    assert.match(body, /^ {2}cluster +3 +60$/m);
    assert.doesNotMatch(body, /^ {2}zone +silent/m, 'no empty zone table');
    assert.match(body.replace(/\s+/g, ' '), /The node group: a rollout in progress/);
  });

  it('STORM in a zone naming a node group too: both tables', () => {
    const body = renderBody(
      notification({
        kind: 'STORM',
        firing: manyNodes(3),
        storm: {
          scope: 'zone',
          zones: [{ zone: 'eu-west-1a', total: 5, silent: 3 }],
          nodeGroups: [{ nodeGroup: 'spot', total: 4, silent: 3 }],
          clusterTotal: 10,
          clusterSilent: 3,
        },
      }),
    );
    assert.match(body, /^STORM: 3 of 5 nodes silent in eu-west-1a$/m);
    assert.match(body, /^ {2}eu-west-1a +3 +5 \(60 %\)$/m);
    assert.match(body, /^ {2}spot +3 +4 \(75 %\)$/m);
  });

  it('a STORM stored before the silent counts were named so still renders its counts', () => {
    const stored = {
      scope: 'zone',
      zones: [{ zone: 'eu-west-1a', total: 20, alerting: 14 }],
      clusterTotal: 60,
      clusterAlerting: 14,
    } as unknown as StormInfo;
    const n = notification({ kind: 'STORM', firing: manyNodes(14), storm: stored });
    assert.equal(renderSubject(n), '[prod-eu] STORM: 14 of 20 nodes silent in eu-west-1a');
    assert.match(renderBody(n), /^ {2}cluster +14 +60$/m);
  });

  it('WATCHDOG: what failed, since when, what to check', () => {
    const body = renderBody(
      notification({
        kind: 'WATCHDOG',
        watchdog: {
          state: 'failing',
          failure: 'forbidden',
          message: 'cannot list leases in kube-node-lease: 403 Forbidden',
          since: AT - 725_000,
        },
      }),
    );
    assert.match(body, /^WATCHDOG: the watchdog cannot read this cluster$/m);
    assert.match(
      body,
      /^What failed: +forbidden: cannot list leases in kube-node-lease: 403 Forbidden$/m,
    );
    assert.match(body, /^Since: +2026-11-29 17:42:55 UTC \(12m ago\)$/m);
    const flat = body.replace(/\s+/g, ' ');
    assert.match(flat, /Network path:/);
    assert.match(flat, /Credentials:/);
    assert.match(flat, /deploy\/rbac\.yaml/);
    assert.match(flat, /node failures in this cluster go unnoticed/);
    assert.match(body, /^ {2}kubectl --context prod-eu get leases -n kube-node-lease$/m);
    assert.doesNotMatch(body, /<node>/);
  });

  it('WATCHDOG resolved says since when and for how long', () => {
    const body = renderBody(
      notification({
        kind: 'WATCHDOG',
        severity: 'info',
        watchdog: {
          state: 'resolved',
          failure: 'timeout',
          message: 'timed out',
          since: AT - 3_600_000,
        },
      }),
    );
    assert.match(body, /^From: +2026-11-29 16:55:00 UTC to 2026-11-29 17:55:00 UTC \(60m\)$/m);
  });

  it('quotes hostile names in the commands it suggests', () => {
    const body = renderBody(notification({ firing: [alertNode('$(rm -rf ~); echo')] }));
    assert.ok(body.includes(`kubectl --context prod-eu describe node '$(rm -rf ~); echo'\n`));
    assert.doesNotMatch(body, /kubectl describe node \$\(/);
  });

  it('a 5,000-node storm with EKS names is listed in full, under the limit', () => {
    const nodes = manyNodes(5000, ['eu-west-1a', 'eu-west-1b', 'eu-west-1c']);
    const body = renderBody(
      notification({
        kind: 'STORM',
        firing: nodes,
        storm: { scope: 'cluster', zones: [], clusterTotal: 6000, clusterSilent: 5000 },
      }),
    );
    assert.ok(Buffer.byteLength(body) <= BODY_MAX_BYTES, `${Buffer.byteLength(body)} bytes`);
    assert.doesNotMatch(body, /more nodes? \(not listed/);
    const listed = body
      .split('\n')
      .filter((l) => l.startsWith('    ip-'))
      .flatMap((l) => l.trim().split(', '));
    assert.equal(listed.length, 5000);
  });

  it('a 20,000-node storm is shortened with "and N more", and the counts add up', () => {
    const nodes = manyNodes(20_000);
    const body = renderBody(
      notification({
        kind: 'STORM',
        firing: nodes,
        storm: { scope: 'cluster', zones: [], clusterTotal: 20_000, clusterSilent: 20_000 },
      }),
    );
    const bytes = Buffer.byteLength(body);
    assert.ok(bytes <= BODY_MAX_BYTES && bytes > BODY_MAX_BYTES - 2_000, `${bytes} bytes`);
    const listed = body
      .split('\n')
      .filter((l) => l.startsWith('    ip-'))
      .flatMap((l) => l.trim().split(', '));
    const more = /… and ([\d,]+) more nodes/.exec(body);
    assert.ok(more?.[1], 'has an "and N more" line');
    assert.equal(listed.length + Number(more[1].replaceAll(',', '')), 20_000);
    assert.match(body, /^Look further$/m, 'the tail survives');
  });

  it('a 100,000-node FIRING is shortened with "and N more", and the counts add up', () => {
    const body = renderBody(notification({ firing: manyNodes(100_000) }));
    const bytes = Buffer.byteLength(body);
    assert.ok(bytes <= BODY_MAX_BYTES && bytes > BODY_MAX_BYTES - 2_000, `${bytes} bytes`);
    const shown = body.split('\n').filter((l) => l.startsWith('  verdict:')).length;
    const more = /… and ([\d,]+) more nodes \(not listed: message size limit\)/.exec(body);
    assert.ok(more?.[1], 'has an "and N more" line');
    assert.equal(shown + Number(more[1].replaceAll(',', '')), 100_000);
    assert.match(more[1], /^\d{1,3}(,\d{3})+$/, 'thousands separators');
    assert.match(body, /^What happens next in Kubernetes$/m);
    assert.match(body, /^-- lease-watchdog, notification /m);
  });

  it('every section says how much it left out when several overflow', () => {
    const body = renderBody(notification({ firing: manyNodes(500), resolved: manyNodes(500) }), {
      maxBytes: 20_000,
    });
    assert.ok(Buffer.byteLength(body) <= 20_000);
    assert.match(body, /^RESOLVED: 500 nodes recovered$/m);
    assert.equal([...body.matchAll(/… and [\d,]+ more nodes/g)].length, 2);
  });

  it('honours a tiny maxBytes even when the fixed parts do not fit', () => {
    const body = renderBody(notification({ cluster: '€'.repeat(200), firing: two }), {
      maxBytes: 600,
    });
    assert.ok(Buffer.byteLength(body) <= 600, `${Buffer.byteLength(body)}`);
    assert.match(body, /truncated: message size limit/);
    assert.doesNotMatch(body, /\ufffd/);
  });

  it('keeps non-ASCII names readable in the body, without bidi or control characters', () => {
    const body = renderBody(notification({ firing: [alertNode('nœud-\u202eété\u0000-🔥')] }));
    assert.match(body, /^nœud-été-🔥$/m);
    bodyLinesOk(body);
  });

  it('is deterministic', () => {
    const n = notification({ firing: two, resolved: [alertNode('c')] });
    assert.equal(renderBody(n), renderBody(n));
    assert.equal(renderSubject(n), renderSubject(n));
  });
});

describe('text helpers', () => {
  it('utc', () => {
    assert.equal(utc(AT), '2026-11-29 17:55:00 UTC');
    assert.equal(utc(Number.NaN), '(unknown time)');
    assert.equal(utc(1e20), '(unknown time)');
  });

  it('truncate never splits a surrogate pair or a grapheme', () => {
    const family = '👨‍👩‍👧';
    assert.equal(truncate(`ab${family}cd`, 5, '...'), 'ab...');
    assert.equal(truncate('a😀b', 2, ''), 'a');
    assert.equal(truncate('short', 10), 'short');
    const cut = truncate('😀'.repeat(100), 51);
    assert.ok(cut.length <= 51);
    assert.equal(cut.toWellFormed(), cut);
  });

  it('cleanText and asciiText', () => {
    assert.equal(cleanText('a\nb\tc\u0000d\u202ee\u200bf'), 'a b cdef');
    assert.equal(asciiText('café ｐｒｏｄ 🔥'), 'cafe prod ?');
  });

  it('shellWord', () => {
    assert.equal(
      shellWord('ip-10-0-1-5.eu-west-1.compute.internal'),
      'ip-10-0-1-5.eu-west-1.compute.internal',
    );
    assert.equal(shellWord("a'b c"), `'a'\\''b c'`);
  });
});

describe('a storm that ended', () => {
  const ended = notification({
    kind: 'STORM',
    severity: 'info',
    resolved: [
      alertNode('ip-10-0-3-1.eu-west-1.compute.internal', {
        verdict: 'healthy',
        resolution: 'recovered',
      }),
    ],
    storm: {
      scope: 'zone',
      state: 'ended',
      zones: [{ zone: 'eu-west-1c', total: 4, silent: 0 }],
      clusterTotal: 12,
      clusterSilent: 1,
    },
  });

  it('says the storm is over in the subject, not that nodes are silent', () => {
    const subject = renderSubject(ended);
    assert.match(subject, /STORM OVER: 1 node recovered; storm over/);
    assert.doesNotMatch(subject, /silent/);
  });

  it('says it is over in the body, without the storm checklist', () => {
    const body = renderBody(ended);
    assert.match(
      body,
      /STORM OVER\n-+\nThe zone disruption reported earlier is over: 1 of 12 nodes are silent now/,
    );
    assert.doesNotMatch(body, /likely cause is the network/);
    assert.doesNotMatch(body, /slows evictions/);
  });
});
