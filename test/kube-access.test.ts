import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { renderBody } from '../lambda/adapters/notify/render/render.js';
import { kubeAccessOf } from '../lambda/handler/cluster-places.js';
import { parseWatchdogSettings } from '../lambda/settings/index.js';
import { alertNode, notification } from '../testkit/notifications.js';

/** The clusters as the function's settings parse them (the same parser as at cold start). */
const clusters = parseWatchdogSettings({
  clusters: [
    { name: 'prod-eu', auth: { mode: 'eks', clusterName: 'prod-eu-1' } },
    { name: 'prod-us', auth: { mode: 'eks', clusterName: 'prod-us-1', region: 'us-east-1' } },
    { name: 'lab', auth: { mode: 'kubeconfig', secretId: 'lab-kubeconfig', context: 'lab-admin' } },
    {
      name: 'edge',
      auth: { mode: 'token', server: 'https://edge.example:6443', tokenSecretId: 's' },
    },
  ],
}).clusters;

describe('the kubectl commands in emails name how to reach each cluster', () => {
  it('eks: the cluster and its region (the function region by default); kubeconfig: its context; token: nothing', () => {
    assert.deepEqual(
      clusters.map((c) => kubeAccessOf(c, 'eu-west-1')),
      [
        { eks: { clusterName: 'prod-eu-1', region: 'eu-west-1' } },
        { eks: { clusterName: 'prod-us-1', region: 'us-east-1' } },
        { context: 'lab-admin' },
        undefined,
      ],
    );
  });

  it('an eks cluster: the email says how to get a context, then uses it', () => {
    const [eks] = clusters;
    assert.ok(eks);
    const body = renderBody(notification({ firing: [alertNode('ip-10-0-1-5')] }), {
      kube: kubeAccessOf(eks, 'eu-west-1'),
    });
    assert.match(body, /aws eks update-kubeconfig --name prod-eu-1 --region eu-west-1/);
    assert.match(body, /kubectl --context \S+ describe node ip-10-0-1-5/);
  });
});
