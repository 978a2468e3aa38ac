/**
 * DynamoDB items of the state store (see dynamodb-store.ts): keys, DynamoDB's item size rules,
 * typed attribute readers, and the small pieces the store's writes are made of.
 */
import type { AttributeValue, WriteRequest } from '@aws-sdk/client-dynamodb';
import { StateCorruptError } from '../../../ports/index.js';

export type Item = Record<string, AttributeValue>;

export function partitionKey(cluster: string): string {
  return `cluster#${cluster}`;
}

/**
 * The key of a blob's piece `index` under `prefix`: `chunk#<generation>#<00000>` (the state's),
 * `obs#<generation>#<00000>` (an observation snapshot's, docs/STATE.md).
 */
export function pieceKey(prefix: string, index: number): string {
  return `${prefix}${String(index).padStart(5, '0')}`;
}

/**
 * An item's size by DynamoDB's rules: attribute names plus values (strings as UTF-8, binaries
 * raw, numbers about one byte per two significant digits plus one).
 */
export function itemBytes(item: Item): number {
  let size = 0;
  for (const [name, value] of Object.entries(item)) {
    size += Buffer.byteLength(name, 'utf8') + valueBytes(value);
  }
  return size;
}

function valueBytes(value: AttributeValue): number {
  if (value.S !== undefined) return Buffer.byteLength(value.S, 'utf8');
  if (value.B !== undefined) return value.B.length;
  if (value.N !== undefined) {
    const digits = value.N.replace(/^-/, '').replace('.', '').replace(/^0+/, '').replace(/0+$/, '');
    return Math.ceil(Math.max(digits.length, 1) / 2) + 1;
  }
  if (value.BOOL !== undefined || value.NULL !== undefined) return 1;
  return Buffer.byteLength(JSON.stringify(value), 'utf8');
}

export function sortKeyOf(request: WriteRequest): string | undefined {
  return (request.PutRequest?.Item ?? request.DeleteRequest?.Key)?.sk?.S;
}

export function split(blob: Buffer, size: number): Buffer[] {
  const pieces: Buffer[] = [];
  for (let offset = 0; offset < blob.length; offset += size) {
    pieces.push(blob.subarray(offset, offset + size));
  }
  return pieces;
}

export function numberOf(item: Item, name: string): number {
  const value = Number(item[name]?.N);
  if (!Number.isFinite(value)) throw new StateCorruptError(`state item lacks the number ${name}`);
  return value;
}

export function stringOf(item: Item, name: string): string {
  const value = item[name]?.S;
  if (value === undefined) throw new StateCorruptError(`state item lacks the string ${name}`);
  return value;
}

export function binaryOf(item: Item, name: string): Uint8Array {
  const value = item[name]?.B;
  if (value === undefined) throw new StateCorruptError(`state item lacks the binary ${name}`);
  return value;
}

export function isConditionalCheckFailed(error: unknown): boolean {
  return error instanceof Error && error.name === 'ConditionalCheckFailedException';
}
