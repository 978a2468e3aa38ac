/**
 * What `undici` is in the Lambda bundle (infra/watchdog-function.ts aliases it here): nothing.
 * client-node imports undici at the top of its config module, for fetch-based clients the
 * watchdog never builds; the watchdog's own GETs use node:https (lambda/kube/http-exchange.ts).
 * Aliased away, its 740 kB are neither shipped nor loaded at every cold start. Importing this
 * costs nothing; using any of it throws one clear line, so a code path that comes to need undici
 * fails loudly in the tests that run the bundle instead of silently.
 */

function absent(name: string): never {
  throw new Error(
    `lease-watchdog: undici's ${name} was called in the Lambda bundle, which leaves undici out (infra/watchdog-function.ts aliases it to infra/undici-absent.ts): remove the alias or stop using undici`,
  );
}

export class Agent {
  constructor() {
    absent('Agent');
  }
}

export class ProxyAgent {
  constructor() {
    absent('ProxyAgent');
  }
}

export function fetch(): never {
  return absent('fetch');
}
