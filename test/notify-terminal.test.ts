import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  SEPARATOR,
  TerminalNotifier,
} from '../lambda/adapters/notify/delivery/terminal-notifier.js';
import { renderBody, renderSubject } from '../lambda/adapters/notify/render/render.js';
import { alertNode, notification } from '../testkit/notifications.js';

describe('TerminalNotifier', () => {
  it('renders each body with the context of its cluster', async () => {
    const written: string[] = [];
    const notifier = new TerminalNotifier((text) => written.push(text), {
      contextFor: (cluster) => ({ namespace: `${cluster}-leases` }),
    });
    const n = notification({ firing: [alertNode('worker-1')] });
    await notifier.publish(n);
    assert.ok(written[0]?.includes(renderBody(n, { namespace: 'prod-eu-leases' })));
    assert.match(
      written[0] ?? '',
      /^ {2}kubectl --context prod-eu get lease worker-1 -n prod-eu-leases -o yaml$/m,
    );
  });

  it('prints subject and body between separator lines, once per notification', async () => {
    const written: string[] = [];
    const notifier = new TerminalNotifier((text) => written.push(text));
    const n = notification({ firing: [alertNode('worker-1'), alertNode('worker-2')] });
    await notifier.publish(n);
    await notifier.publish(notification({ kind: 'RESOLVED', resolved: [alertNode('worker-1')] }));

    assert.equal(written.length, 2);
    const [first] = written;
    assert.equal(
      first,
      `${SEPARATOR}\nSubject: ${renderSubject(n)}\n${SEPARATOR}\n${renderBody(n)}\n${SEPARATOR}\n`,
    );
    assert.match(
      first ?? '',
      /^Subject: \[prod-eu\] FIRING: 2 nodes down \(worker-1, worker-2\)$/m,
    );
    assert.match(
      written[1] ?? '',
      /^Subject: \[prod-eu\] RESOLVED: 1 node recovered \(worker-1\)$/m,
    );
  });

  it('never writes terminal escape sequences from hostile names', async () => {
    const written: string[] = [];
    await new TerminalNotifier((text) => written.push(text)).publish(
      notification({
        cluster: '\u001b]0;pwned\u0007',
        firing: [alertNode('\u001b[2Jnode\u001b[31m')],
      }),
    );
    assert.doesNotMatch(written.join('').replaceAll('\n', ''), /\p{Cc}/u);
    assert.match(written.join(''), /^\[2Jnode\[31m$/m);
  });

  it('does not print when the signal is already aborted', async () => {
    const written: string[] = [];
    await assert.rejects(
      new TerminalNotifier((text) => written.push(text)).publish(
        notification({ firing: [alertNode('a')] }),
        AbortSignal.abort(),
      ),
      { name: 'AbortError' },
    );
    assert.equal(written.length, 0);
  });
});
