/**
 * The three patch formats kubectl sends, applied to an object's JSON: JSON merge patch
 * (RFC 7386), strategic merge patch (merge patch plus `$patch` / `$setElementOrder` directives;
 * the fields the sim lets clients write are maps, scalars and atomic lists, where the two agree)
 * and JSON patch (RFC 6902).
 */
import { isRecord, SimApiError } from './objects.js';

export const MERGE_PATCH = 'application/merge-patch+json';
export const STRATEGIC_MERGE_PATCH = 'application/strategic-merge-patch+json';
export const JSON_PATCH = 'application/json-patch+json';

function mergePatch(target: unknown, patch: unknown, strategic: boolean): unknown {
  if (!isRecord(patch)) return patch;
  if (strategic && patch.$patch === 'replace') {
    const { $patch: _, ...rest } = patch;
    return mergePatch({}, rest, strategic);
  }
  if (strategic && patch.$patch === 'delete') return undefined;
  const out: Record<string, unknown> = isRecord(target) ? { ...target } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (strategic && key.startsWith('$')) continue;
    if (value === null) delete out[key];
    else {
      const merged = mergePatch(out[key], value, strategic);
      if (merged === undefined) delete out[key];
      else out[key] = merged;
    }
  }
  return out;
}

function invalid(message: string): SimApiError {
  return new SimApiError(422, 'Invalid', message);
}

/** Splits a JSON pointer into its unescaped tokens. */
function pointer(path: unknown): string[] {
  if (typeof path !== 'string' || (path !== '' && !path.startsWith('/'))) {
    throw invalid(`the JSON patch path "${String(path)}" is not a JSON pointer`);
  }
  return path
    .split('/')
    .slice(1)
    .map((t) => t.replaceAll('~1', '/').replaceAll('~0', '~'));
}

type Container = Record<string, unknown> | unknown[];

function parentOf(doc: unknown, tokens: string[], path: string): [Container, string] {
  let node = doc;
  for (const t of tokens.slice(0, -1)) {
    node = Array.isArray(node) ? node[Number(t)] : isRecord(node) ? node[t] : undefined;
    if (node === undefined) throw invalid(`doc is missing path: "${path}"`);
  }
  if (!Array.isArray(node) && !isRecord(node)) throw invalid(`doc is missing path: "${path}"`);
  return [node, tokens[tokens.length - 1] ?? ''];
}

function getAt(doc: unknown, path: string): unknown {
  let node = doc;
  for (const t of pointer(path)) {
    node = Array.isArray(node) ? node[Number(t)] : isRecord(node) ? node[t] : undefined;
    if (node === undefined) throw invalid(`doc is missing path: "${path}"`);
  }
  return node;
}

function removeAt(doc: unknown, path: string): unknown {
  const [parent, key] = parentOf(doc, pointer(path), path);
  if (Array.isArray(parent)) {
    const i = Number(key);
    if (!(i >= 0 && i < parent.length)) throw invalid(`doc is missing path: "${path}"`);
    return parent.splice(i, 1)[0];
  }
  if (!(key in parent)) throw invalid(`doc is missing path: "${path}"`);
  const old = parent[key];
  delete parent[key];
  return old;
}

function addAt(doc: unknown, path: string, value: unknown, replace: boolean): void {
  const [parent, key] = parentOf(doc, pointer(path), path);
  if (Array.isArray(parent)) {
    const i = key === '-' ? parent.length : Number(key);
    if (!(i >= 0 && i <= parent.length)) throw invalid(`doc is missing path: "${path}"`);
    if (replace) parent[i] = value;
    else parent.splice(i, 0, value);
    return;
  }
  if (replace && !(key in parent)) throw invalid(`doc is missing key: "${path}"`);
  parent[key] = value;
}

function jsonPatch(doc: unknown, ops: unknown): unknown {
  if (!Array.isArray(ops))
    throw new SimApiError(400, 'BadRequest', 'a JSON patch must be an array');
  const out = structuredClone(doc);
  for (const op of ops) {
    if (!isRecord(op)) throw invalid('a JSON patch operation must be an object');
    const path = String(op.path);
    switch (op.op) {
      case 'add':
        addAt(out, path, structuredClone(op.value), false);
        break;
      case 'replace':
        addAt(out, path, structuredClone(op.value), true);
        break;
      case 'remove':
        removeAt(out, path);
        break;
      case 'move':
        addAt(out, path, removeAt(out, String(op.from)), false);
        break;
      case 'copy':
        addAt(out, path, structuredClone(getAt(out, String(op.from))), false);
        break;
      case 'test':
        if (JSON.stringify(getAt(out, path)) !== JSON.stringify(op.value)) {
          throw invalid(`the JSON patch test operation failed at "${path}"`);
        }
        break;
      default:
        throw invalid(`Unexpected kind: ${String(op.op)}`);
    }
  }
  return out;
}

/** The object after the patch, or a 415 for a content type the sim does not take. */
export function applyPatch(doc: unknown, contentType: string, patch: unknown): unknown {
  switch (contentType) {
    case MERGE_PATCH:
      return mergePatch(doc, patch, false);
    case STRATEGIC_MERGE_PATCH:
      return mergePatch(doc, patch, true);
    case JSON_PATCH:
      return jsonPatch(doc, patch);
    default:
      throw new SimApiError(
        415,
        'UnsupportedMediaType',
        `the body of the request was in an unknown format - accepted media types include: ${JSON_PATCH}, ${MERGE_PATCH}, ${STRATEGIC_MERGE_PATCH}`,
      );
  }
}
