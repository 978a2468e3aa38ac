/**
 * Kubernetes label selectors (`k=v`, `k==v`, `k!=v`, `k`, `!k`, `k in (a,b)`, `k notin (a,b)`,
 * comma-separated, all must hold). Used to exclude nodes, and by the simulated API server.
 */

export type Requirement =
  | { readonly key: string; readonly op: 'exists' | 'not-exists' }
  | { readonly key: string; readonly op: 'in' | 'notin'; readonly values: readonly string[] };

export interface LabelSelector {
  /** The selector as the user wrote it. */
  readonly source: string;
  readonly requirements: readonly Requirement[];
}

export class SelectorSyntaxError extends Error {
  override readonly name = 'SelectorSyntaxError';
}

const KEY =
  /^([a-z0-9A-Z]([-a-z0-9A-Z_.]*[a-z0-9A-Z])?\/)?[a-zA-Z0-9]([-a-zA-Z0-9_.]*[a-zA-Z0-9])?$/;
const VALUE = /^([a-zA-Z0-9]([-a-zA-Z0-9_.]*[a-zA-Z0-9])?)?$/;

/** A comma between terms: not inside parentheses (no `)` follows it before a `(`). */
const TERM_COMMA = /,(?![^(]*\))/;

function checkKey(key: string, term: string): string {
  if (!KEY.test(key)) {
    throw new SelectorSyntaxError(`invalid label key "${key}" in selector term "${term}"`);
  }
  return key;
}

function checkValue(value: string, term: string): string {
  if (!VALUE.test(value) || value.length > 63) {
    throw new SelectorSyntaxError(`invalid label value "${value}" in selector term "${term}"`);
  }
  return value;
}

function parseTerm(term: string): Requirement {
  const set = /^(\S+)\s+(in|notin)\s*\((.*)\)$/.exec(term);
  if (set) {
    const [, key = '', op = '', list = ''] = set;
    const values = list.split(',').map((v) => checkValue(v.trim(), term));
    return { key: checkKey(key, term), op: op === 'in' ? 'in' : 'notin', values };
  }
  const eq = /^([^!=\s]+)\s*(==|=|!=)\s*(.*)$/.exec(term);
  if (eq) {
    const [, key = '', op = '', value = ''] = eq;
    return {
      key: checkKey(key, term),
      op: op === '!=' ? 'notin' : 'in',
      values: [checkValue(value.trim(), term)],
    };
  }
  if (term.startsWith('!')) return { key: checkKey(term.slice(1).trim(), term), op: 'not-exists' };
  return { key: checkKey(term, term), op: 'exists' };
}

/** Parses a label selector; throws SelectorSyntaxError naming the bad term. */
export function parseSelector(source: string): LabelSelector {
  const trimmed = source.trim();
  if (trimmed === '') return { source, requirements: [] };
  const requirements = trimmed.split(TERM_COMMA).map((part) => {
    const term = part.trim();
    if (term === '') throw new SelectorSyntaxError(`empty term in selector "${source}"`);
    return parseTerm(term);
  });
  return { source, requirements };
}

export function matchesSelector(
  selector: LabelSelector,
  labels: Readonly<Record<string, string>>,
): boolean {
  return selector.requirements.every((r) => {
    const has = Object.hasOwn(labels, r.key);
    switch (r.op) {
      case 'exists':
        return has;
      case 'not-exists':
        return !has;
      case 'in':
        return has && r.values.includes(labels[r.key] as string);
      default:
        return !has || !r.values.includes(labels[r.key] as string);
    }
  });
}
