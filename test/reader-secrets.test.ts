/**
 * A password in a server URL never reaches a message: the reader refuses such a URL in every
 * mode (whoever built the kubeconfig), and error text it quotes from below is stripped of any
 * `user:pass@` before it becomes a ClusterReadError.
 */

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { KubeConfig } from '@kubernetes/client-node';
import { authSetupError, transportError } from '../lambda/adapters/kube/http/read-errors.js';
import { KubeClusterReader } from '../lambda/adapters/kube/kube-reader.js';
import { ClusterReadError } from '../lambda/ports/index.js';

const PASSWORD = 'pa55-word-never-shown';

describe('passwords in server URLs', () => {
  it('the reader refuses a server URL with a user name and password, without quoting them', () => {
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromOptions({
      clusters: [{ name: 'c', server: `https://admin:${PASSWORD}@10.0.0.1:6443` }],
      users: [{ name: 'u', token: 't' }],
      contexts: [{ name: 'ctx', cluster: 'c', user: 'u' }],
      currentContext: 'ctx',
    });
    assert.throws(
      () => new KubeClusterReader({ kubeConfig, cluster: 'prod', namespace: 'kube-node-lease' }),
      (error: unknown) => {
        assert.ok(error instanceof ClusterReadError);
        assert.equal(error.failure, 'config');
        assert.match(error.message, /server URL of cluster prod has a user name or password/);
        assert.doesNotMatch(error.message, new RegExp(`${PASSWORD}|admin`));
        return true;
      },
    );
  });

  it('error text quoting a URL with credentials is stripped of them', () => {
    const below = new Error(
      `fetch failed for https://admin:${PASSWORD}@10.0.0.1:6443/api/v1/nodes`,
    );
    const target = { host: '10.0.0.1:6443', namespace: 'kube-node-lease' };
    const transport = transportError(target, 'listing nodes', below);
    assert.match(transport.message, /https:\/\/10\.0\.0\.1:6443\/api\/v1\/nodes/);
    assert.doesNotMatch(transport.message, new RegExp(PASSWORD));
    const auth = authSetupError(below, new KubeConfig());
    assert.doesNotMatch(auth.message, new RegExp(PASSWORD));
  });
});
