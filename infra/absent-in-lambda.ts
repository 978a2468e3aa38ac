/**
 * What the Lambda bundle gets for the packages it leaves out (infra/watchdog-function.ts aliases
 * them here): nothing. client-node imports them at the top of its config module for what the
 * watchdog never does in Lambda:
 * - `undici` (740 kB): its fetch-based API clients; the watchdog's GETs use node:https
 *   (lambda/adapters/kube/http/http-exchange.ts).
 * - `socks-proxy-agent`, `socks`, `hpagent` (with ip-address, smart-buffer: ~85 kB): a kubeconfig
 *   `proxy-url`: the reader tunnels through an http:// proxy itself (CONNECT, proxy-tunnel.ts),
 *   refuses any other kind, and hands client-node the kubeconfig without it, so that client-node
 *   never builds an agent of its own (test/infra-bundle.test.ts reads a cluster through a proxy).
 * - `jsonpath-plus` (25 kB): the `azure` and `gcp` auth providers, which a kubeconfig in Lambda
 *   may not use (lambda/adapters/kube/config/auth-kubeconfig.ts).
 * Left out, they are neither shipped nor parsed at every cold start. Importing this costs
 * nothing; using any of it throws one clear line, so a code path that comes to need one fails
 * loudly in the tests that run the bundle (test/infra-bundle.test.ts).
 */

function absent(name: string): never {
  throw new Error(
    `lease-watchdog: ${name} was called in the Lambda bundle, which leaves it out (infra/watchdog-function.ts aliases it to infra/absent-in-lambda.ts): remove the alias or stop using it`,
  );
}

/** undici's */
export class Agent {
  constructor() {
    absent("undici's Agent");
  }
}

/** undici's */
export class ProxyAgent {
  constructor() {
    absent("undici's ProxyAgent");
  }
}

/** undici's */
export function fetch(): never {
  return absent("undici's fetch");
}

/** socks-proxy-agent's */
export class SocksProxyAgent {
  constructor() {
    absent('SocksProxyAgent (socks-proxy-agent)');
  }
}

/** socks' */
export const SocksClient = {
  createConnection(): never {
    return absent('SocksClient (socks)');
  },
};

/** hpagent's */
export class HttpProxyAgent {
  constructor() {
    absent('HttpProxyAgent (hpagent)');
  }
}

/** hpagent's */
export class HttpsProxyAgent {
  constructor() {
    absent('HttpsProxyAgent (hpagent)');
  }
}

/** jsonpath-plus' */
export function JSONPath(): never {
  return absent('JSONPath (jsonpath-plus)');
}
