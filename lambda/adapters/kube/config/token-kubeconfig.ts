/**
 * A KubeConfig of one API server and a bearer token, as `token` and `eks` auth build it
 * (cluster-auth.ts): the server URL, the CA data and the token checked before client-node sees
 * them, each failure a ClusterAuthError that names the cluster and never quotes the secret. Pure:
 * no network, no AWS.
 */

import { failing } from './auth-error.js';
import { KubeConfig } from './kube-config.js';

const TOKEN_USER = 'lease-watchdog';

/** A KubeConfig of one cluster, reached with a bearer token, TLS verified. */
export function singleUserConfig(
  name: string,
  server: string,
  caData: string | undefined,
  token: string,
): KubeConfig {
  return new KubeConfig().loadFromOptions({
    clusters: [{ name, server, skipTLSVerify: false, ...(caData ? { caData } : {}) }],
    users: [{ name: TOKEN_USER, token }],
    contexts: [{ name, cluster: name, user: TOKEN_USER }],
    currentContext: name,
  });
}

/** The server URL as given, checked: https, no credentials in it, no trailing slash. */
export function httpsServer(cluster: string, server: string): string {
  const url = URL.parse(server);
  if (!url) {
    throw failing(cluster)('settings-invalid', `server for cluster '${cluster}' is not a URL`);
  }
  if (url.protocol !== 'https:') {
    throw failing(cluster)(
      'insecure-tls',
      `server for cluster '${cluster}' must be an https:// URL: TLS is always on in Lambda`,
    );
  }
  if (url.username || url.password) {
    throw failing(cluster)(
      'settings-invalid',
      `server for cluster '${cluster}' must not carry credentials`,
    );
  }
  return server.replace(/\/+$/, '');
}

/** caData as a kubeconfig holds it: base64 of PEM. Raw PEM is accepted and encoded. */
export function base64Pem(cluster: string, caData: string): string {
  const trimmed = caData.trim();
  if (trimmed.startsWith('-----BEGIN CERTIFICATE-----')) {
    return Buffer.from(`${trimmed}\n`, 'utf8').toString('base64');
  }
  const decoded = Buffer.from(trimmed, 'base64').toString('utf8');
  if (!/^[A-Za-z0-9+/=\s]+$/.test(trimmed) || !decoded.includes('-----BEGIN CERTIFICATE-----')) {
    throw failing(cluster)(
      'ca-invalid',
      `CA data for cluster '${cluster}' is not a base64-encoded PEM certificate`,
    );
  }
  return trimmed.replace(/\s+/g, '');
}

/** The secret holds the token itself, or JSON with a `token` field. */
export function bearerToken(cluster: string, secretId: string, value: string): string {
  let token = value.trim();
  if (token.startsWith('{')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(token);
    } catch {
      parsed = undefined;
    }
    const field = (parsed as { token?: unknown } | undefined)?.token;
    if (typeof field !== 'string') {
      throw failing(cluster)(
        'secret-invalid',
        `secret '${secretId}' holds JSON without a string 'token' field; store the bearer token itself or {"token": "..."}`,
      );
    }
    token = field.trim();
  }
  if (!/^[!-~]+$/.test(token)) {
    throw failing(cluster)(
      'secret-invalid',
      `secret '${secretId}' does not hold a bearer token (empty, or not printable ASCII without spaces)`,
    );
  }
  return token;
}
