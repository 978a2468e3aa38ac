/**
 * `JSON.stringify(value)`, the same text, as consecutive parts: an array longer than `batch` is
 * written `batch` elements at a time, and the objects around it key by key, so that a document
 * whose columns hold 100,000 leases is never one ~9 MB string (nor its ~9 MB of UTF-8) while it
 * is gzipped (state-blob.ts). Anything else is written as JSON.stringify writes it, in one part.
 */
export function* jsonParts(value: unknown, batch = 4096): Generator<string> {
  if (Array.isArray(value)) {
    if (value.length <= batch) {
      yield JSON.stringify(value);
      return;
    }
    yield '[';
    for (let i = 0; i < value.length; i += batch) {
      const text = JSON.stringify(value.slice(i, i + batch));
      yield `${i === 0 ? '' : ','}${text.slice(1, -1)}`;
    }
    yield ']';
    return;
  }
  if (!isPlainObject(value)) {
    yield JSON.stringify(value);
    return;
  }
  yield '{';
  let first = true;
  for (const key of Object.keys(value)) {
    const field = value[key];
    // What JSON.stringify leaves out of an object.
    if (field === undefined || typeof field === 'function' || typeof field === 'symbol') continue;
    yield `${first ? '' : ','}${JSON.stringify(key)}:`;
    first = false;
    yield* jsonParts(field, batch);
  }
  yield '}';
}

/** An object JSON.stringify writes key by key: not an array, no `toJSON`, no class of its own. */
function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  const prototype = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) return false;
  return typeof (value as { toJSON?: unknown }).toJSON !== 'function';
}
