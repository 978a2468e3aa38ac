/**
 * A kubeconfig `proxy-url`, as kubectl uses an `http://` one: a CONNECT tunnel per connection,
 * TLS to the API server inside it (verified exactly as without a proxy: the proxy sees only
 * encrypted bytes). Our own tunnel, not hpagent (client-node's): hpagent bounds CONNECT only by a
 * socket idle timeout and knows no abort signal, decodes the proxy password with a bare
 * decodeURIComponent (a raw URIError), and would be 85 kB more in the Lambda bundle. Here the
 * CONNECT is bounded by the request timeout and ends when the pool closes; the request's own
 * signal is honoured by http-exchange.ts before the pool hands it a socket.
 */

import type { ClientRequest } from 'node:http';
import { Agent as HttpsAgent, type AgentOptions as HttpsAgentOptions } from 'node:https';
import type { Duplex } from 'node:stream';
import { type ConnectionOptions, connect as tlsConnect } from 'node:tls';
import { ClusterReadError, type KubeConfigView } from '../../../ports/index.js';
import { withCurrentCluster } from '../config/kube-config.js';
import { nodeHttp } from './node-http.js';

/** An http:// proxy, and what it is told: Proxy-Authorization, when the URL has a user. */
export interface Proxy {
  readonly url: URL;
  readonly authorization?: string | undefined;
  /** The proxy password as written and decoded: never to appear in a message. */
  readonly secrets: readonly string[];
}

/**
 * The current cluster's proxy, or undefined. Refused in one line rather than ignored (which
 * would go around the proxy): any kind but http://, a user or password that is not valid
 * %-encoding, and a plain-http API server (its credentials would cross the proxy in clear).
 */
export function proxyOf(kubeConfig: KubeConfigView, server: string): Proxy | undefined {
  const cluster = kubeConfig.getCurrentCluster();
  if (!cluster?.proxyUrl) return undefined;
  const url = URL.parse(cluster.proxyUrl);
  const named = `the kubeconfig's cluster "${cluster.name}" sets proxy-url`;
  if (url?.protocol !== 'http:' || !url.hostname) {
    throw new ClusterReadError(
      'config',
      `${named} to ${url ? `a ${url.protocol.replace(':', '')} proxy` : 'something that is not a URL'}; the watchdog goes through http:// proxies only (CONNECT): set an http:// proxy-url, or remove it to reach the API server directly`,
    );
  }
  if (URL.parse(server)?.protocol === 'http:') {
    // Refused as client-node refuses a plain-http server alone (authSetupError words that one).
    throw new ClusterReadError(
      'config',
      `cannot use the kubeconfig's credentials: HTTP protocol is not allowed through a proxy-url (the credentials would cross it in clear): use the cluster's https:// URL`,
    );
  }
  if (!url.username && !url.password) return { url, secrets: [] };
  let user: string;
  try {
    user = `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`;
  } catch {
    throw new ClusterReadError(
      'config',
      `${named} with a user name or password that is not valid %-encoding (a % must be followed by two hex digits; write %25 for a % itself): fix the proxy-url`,
    );
  }
  const password = user.slice(user.indexOf(':') + 1);
  const encoded = Buffer.from(user).toString('base64');
  return {
    url,
    authorization: `Basic ${encoded}`,
    secrets: [url.password, password, encoded].filter((s) => s.length > 0),
  };
}

/**
 * The kubeconfig as client-node should see it to apply credentials and TLS settings: without the
 * proxy-url, so that it builds no proxy agent of its own (hpagent, left out of the Lambda bundle:
 * the stub there throws). The users are the same objects (a refreshed OIDC token is kept).
 */
export function withoutProxy(kubeConfig: KubeConfigView): KubeConfigView {
  if (!kubeConfig.getCurrentCluster()?.proxyUrl) return kubeConfig;
  return withCurrentCluster(kubeConfig, ({ proxyUrl: _proxy, ...direct }) => direct);
}

/** An HTTP CONNECT to `target` (host:port) through `proxy`, not yet sent. */
function connectThrough(proxy: Proxy, target: string): ClientRequest {
  const headers: Record<string, string> = proxy.authorization
    ? { 'Proxy-Authorization': proxy.authorization }
    : {};
  return nodeHttp().request({
    host: proxy.url.hostname,
    port: proxy.url.port || 80,
    method: 'CONNECT',
    path: target,
    headers: { ...headers, Host: target },
    agent: false,
  });
}

/**
 * An https.Agent whose connections go through `proxy` by HTTP CONNECT, each CONNECT given up
 * after `timeoutMs` (DNS, connect and the proxy's answer) and when the pool is destroyed.
 */
export function tunnelThrough(
  proxy: Proxy,
  timeoutMs: number,
): new (
  options: HttpsAgentOptions,
) => HttpsAgent {
  return class TunnelAgent extends HttpsAgent {
    private readonly pending = new Set<ClientRequest>();

    override createConnection(
      options: ConnectionOptions & { host?: string; port?: number },
      callback: (error: Error | null, socket?: Duplex) => void,
    ): Duplex | undefined {
      const target = `${options.host}:${options.port ?? 443}`;
      const connect = connectThrough(proxy, target);
      this.pending.add(connect);
      const timer = setTimeout(() => {
        connect.destroy(
          new Error(
            `the proxy ${proxy.url.host} did not answer CONNECT ${target} within ${timeoutMs / 1000}s`,
          ),
        );
      }, timeoutMs);
      // Once: a CONNECT may still fail after it was given up (its timer, the pool closing).
      let settled = false;
      const settle = (error: Error | null, socket?: Duplex) => {
        clearTimeout(timer);
        this.pending.delete(connect);
        if (settled) return;
        settled = true;
        callback(error, socket);
      };
      connect.once('connect', (answer, socket) => {
        if (answer.statusCode !== 200) {
          socket.destroy();
          settle(
            new Error(
              `the proxy ${proxy.url.host} answered CONNECT ${target} with HTTP ${answer.statusCode}`,
            ),
          );
          return;
        }
        settle(null, tlsConnect({ ...options, socket }));
      });
      connect.on('error', (error) => settle(error));
      connect.end();
      return undefined;
    }

    /** Closes the pool and every CONNECT still waiting for its answer. */
    override destroy(): void {
      for (const connect of this.pending) connect.destroy();
      this.pending.clear();
      super.destroy();
    }
  };
}
