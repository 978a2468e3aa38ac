/** The kubeconfig (YAML) that points kubectl or client-node at a simulated cluster. */

export interface KubeconfigOptions {
  contextName?: string;
  clusterName?: string;
  /** Bearer token; defaults to the server's own. */
  token?: string;
  /** Include the CA (certificate-authority-data). Default true; false makes TLS verification fail. */
  withCa?: boolean;
  /** Authenticate with the sim's client certificate (client-certificate-data) instead of a token. */
  clientCertificate?: boolean;
}

export const DEFAULT_SIM_CONTEXT = 'lease-watchdog-sim';

/** Renders a single-cluster, single-user kubeconfig. */
export function renderKubeconfig(params: {
  server: string;
  caPem: string;
  token: string;
  /** The client certificate and key (PEM), used when `opts.clientCertificate`. */
  client?: { readonly certPem: string; readonly keyPem: string };
  opts?: KubeconfigOptions;
}): string {
  const opts = params.opts ?? {};
  const cluster = opts.clusterName ?? DEFAULT_SIM_CONTEXT;
  const context = opts.contextName ?? DEFAULT_SIM_CONTEXT;
  const user = `${cluster}-user`;
  const token = opts.token ?? params.token;
  const ca =
    (opts.withCa ?? true)
      ? `    certificate-authority-data: ${Buffer.from(params.caPem).toString('base64')}\n`
      : '';
  return [
    'apiVersion: v1',
    'kind: Config',
    'clusters:',
    `- name: ${q(cluster)}`,
    '  cluster:',
    `    server: ${q(params.server)}`,
    ca.trimEnd(),
    'contexts:',
    `- name: ${q(context)}`,
    '  context:',
    `    cluster: ${q(cluster)}`,
    `    user: ${q(user)}`,
    `current-context: ${q(context)}`,
    'users:',
    `- name: ${q(user)}`,
    '  user:',
    ...(opts.clientCertificate && params.client
      ? [
          `    client-certificate-data: ${Buffer.from(params.client.certPem).toString('base64')}`,
          `    client-key-data: ${Buffer.from(params.client.keyPem).toString('base64')}`,
        ]
      : [`    token: ${q(token)}`]),
    'preferences: {}',
    '',
  ]
    .filter((line) => line !== '')
    .join('\n')
    .concat('\n');
}

/** YAML double-quoted scalar (JSON strings are valid YAML). */
function q(s: string): string {
  return JSON.stringify(s);
}
