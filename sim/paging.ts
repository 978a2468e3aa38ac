/**
 * List parameters and paging, as kube-apiserver does them: `limit` and `continue` tokens over a
 * sorted key space, label selectors, field selectors, and the list envelope's metadata
 * (resourceVersion, continue, remainingItemCount).
 */
import { type LabelSelector, parseSelector, SelectorSyntaxError } from '../lambda/core/selector.js';
import { BadRequest } from './status.js';

export interface FieldTerm {
  field: string;
  op: '=' | '!=';
  value: string;
}

export interface ListParams {
  limit: number;
  start: string;
  selector?: LabelSelector;
  fields: FieldTerm[];
}

/** Parses limit, continue, labelSelector and fieldSelector; `fields` are the supported labels. */
export function parseListParams(query: URLSearchParams, fields: readonly string[]): ListParams {
  const limitRaw = query.get('limit');
  const limit = limitRaw ? Number.parseInt(limitRaw, 10) : 0;
  if (limitRaw && (!Number.isFinite(limit) || limit < 0)) {
    throw new BadRequest(`invalid limit: ${limitRaw}`);
  }
  const params: ListParams = { limit, start: '', fields: [] };
  const cont = query.get('continue');
  if (cont) params.start = decodeContinue(cont);
  const ls = query.get('labelSelector');
  if (ls) {
    try {
      params.selector = parseSelector(ls);
    } catch (err) {
      if (err instanceof SelectorSyntaxError) {
        throw new BadRequest(`unable to parse requirement: ${err.message}`);
      }
      throw err;
    }
  }
  const fs = query.get('fieldSelector');
  if (fs) params.fields = parseFieldSelector(fs, fields);
  return params;
}

function parseFieldSelector(raw: string, supported: readonly string[]): FieldTerm[] {
  const terms: FieldTerm[] = [];
  for (const term of raw.split(',')) {
    if (term.trim() === '') continue;
    const m = /^\s*([a-zA-Z.]+)\s*(==|=|!=)\s*(.*?)\s*$/.exec(term);
    if (!m) throw new BadRequest(`invalid field selector: ${term}`);
    const [, field = '', op = '', value = ''] = m;
    if (!supported.includes(field)) throw new BadRequest(`field label not supported: ${field}`);
    terms.push({ field, op: op === '!=' ? '!=' : '=', value });
  }
  return terms;
}

/** Whether `value(field)` satisfies every term of the field selector. */
export function matchesFields(
  terms: readonly FieldTerm[],
  value: (field: string) => string | undefined,
): boolean {
  for (const t of terms) {
    const eq = (value(t.field) ?? '') === t.value;
    if (t.op === '=' ? !eq : eq) return false;
  }
  return true;
}

interface ContinueToken {
  v: string;
  rv: number;
  start: string;
}

export function encodeContinue(rv: string, lastKey: string): string {
  const token: ContinueToken = { v: 'meta.k8s.io/v1', rv: Number(rv), start: `${lastKey}\u0000` };
  return Buffer.from(JSON.stringify(token)).toString('base64url');
}

function decodeContinue(raw: string): string {
  try {
    const parsed = JSON.parse(
      Buffer.from(raw, 'base64url').toString('utf8'),
    ) as Partial<ContinueToken>;
    if (parsed.v !== 'meta.k8s.io/v1' || typeof parsed.start !== 'string') throw new Error('bad');
    return parsed.start;
  } catch {
    throw new BadRequest(
      'continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)',
    );
  }
}

/** First index in a sorted array whose element is ≥ key. */
function lowerBound(sorted: readonly string[], key: string): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((sorted[mid] as string) < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

export interface Page<T> {
  items: T[];
  continueKey?: string;
  remaining?: number;
}

/**
 * One page of a sorted key space: keys from `start`, filtered, at most `limit` (0 = all).
 * Objects are rendered only for the keys on the page.
 */
export function page<T>(
  keys: readonly string[],
  params: ListParams,
  accept: (key: string) => boolean,
  render: (key: string) => T | undefined,
): Page<T> {
  const items: T[] = [];
  let i = params.start ? lowerBound(keys, params.start) : 0;
  for (; i < keys.length; i++) {
    if (params.limit > 0 && items.length >= params.limit) break;
    const key = keys[i] as string;
    if (!accept(key)) continue;
    const obj = render(key);
    if (obj !== undefined) items.push(obj);
  }
  if (i >= keys.length || items.length === 0) return { items };
  const lastKey = keys[i - 1] as string;
  const filtered = params.selector !== undefined || params.fields.length > 0;
  return filtered
    ? { items, continueKey: lastKey }
    : { items, continueKey: lastKey, remaining: keys.length - i };
}

export function listMetaJson(page: Page<unknown>, rv: string): string {
  const meta: Record<string, unknown> = { resourceVersion: rv };
  if (page.continueKey !== undefined) meta.continue = encodeContinue(rv, page.continueKey);
  if (page.remaining !== undefined) meta.remainingItemCount = page.remaining;
  return JSON.stringify(meta);
}

/** A list from items already serialized one by one: no giant intermediate object. */
export function jsonList(kind: string, apiVersion: string, page: Page<string>, rv: string): string {
  return `{"kind":"${kind}","apiVersion":"${apiVersion}","metadata":${listMetaJson(page, rv)},"items":[${page.items.join(',')}]}`;
}
