/**
 * Placeholder values in a deployment file: names under the domains reserved for documentation
 * and testing (RFC 2606: example.com, example.net, example.org and the `.example`, `.invalid` and
 * `.test` top-level domains), which reach no mailbox and no API server. infra/config.example.json
 * is written with them, so a configuration still holding one is a copy not yet edited: it may be
 * synthesized and looked at, never deployed (infra/placeholder-guard.ts). Pure, so that whatever
 * checks a configuration (the stack, a `config validate`) finds the same ones.
 */
import type { DeploymentConfig } from './parse.js';

/** One placeholder: where it is (`emails[0]`) and the reserved name found there. */
export interface Placeholder {
  readonly field: string;
  readonly value: string;
}

/** A host name under a domain reserved for documentation. */
const RESERVED_HOST = /(^|\.)(example\.(com|net|org)|example|invalid|test)\.?$/i;

/**
 * Every placeholder, in the file's order: an email or alarm email at a reserved domain, a token
 * cluster's API server or a runbook on a reserved host (named by its host alone).
 */
export function placeholdersIn(
  config: Pick<DeploymentConfig, 'clusters' | 'emails' | 'alarmEmails'>,
): Placeholder[] {
  const found: Placeholder[] = [];
  const email = (list: readonly string[] | undefined, key: string) => {
    (list ?? []).forEach((address, i) => {
      if (RESERVED_HOST.test(address.slice(address.lastIndexOf('@') + 1))) {
        found.push({ field: `${key}[${i}]`, value: address });
      }
    });
  };
  email(config.emails, 'emails');
  email(config.alarmEmails, 'alarmEmails');
  config.clusters.forEach((cluster, i) => {
    const urls: [string, string | undefined][] = [
      ['auth.server', cluster.auth.mode === 'token' ? cluster.auth.server : undefined],
      ['runbookUrl', cluster.runbookUrl],
    ];
    for (const [key, url] of urls) {
      const host = url === undefined ? undefined : URL.parse(url)?.hostname;
      if (host !== undefined && RESERVED_HOST.test(host)) {
        found.push({ field: `clusters[${i}].${key}`, value: host });
      }
    }
  });
  return found;
}

/** Placeholders the line names; more are counted. */
const NAMED = 3;

/** What is wrong and how to fix it, naming what to replace; undefined when nothing is. */
export function placeholderProblem(
  config: Pick<DeploymentConfig, 'clusters' | 'emails' | 'alarmEmails'>,
): string | undefined {
  const found = placeholdersIn(config);
  if (found.length === 0) return undefined;
  const named = found.slice(0, NAMED).map((p) => `${p.field} ${p.value}`);
  const more = found.length > NAMED ? ` and ${found.length - NAMED} more` : '';
  return `the configuration still holds placeholder values (${named.join(', ')}${more}), names reserved for documentation (RFC 2606: example.com, .net, .org; .example, .invalid, .test) that reach no mailbox and no cluster. Put your own in a copy of infra/config.example.json and deploy it with -c config=<your file>.`;
}
