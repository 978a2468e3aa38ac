/** Small deterministic helpers: hashes, pseudo-random units, hex, fake digests and uids. */

/** 32-bit FNV-1a of a string. */
export function hashString(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** A well-mixed 32-bit hash of two integers (murmur3 finalizer). */
export function mix(a: number, b: number): number {
  let h = (Math.imul(a ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(b + 0x632be5ab, 0xc2b2ae35)) >>> 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** Deterministic uniform value in [0, 1). */
export function unit(a: number, b: number): number {
  return mix(a, b) / 4_294_967_296;
}

export function hex(n: number, width: number): string {
  return n.toString(16).padStart(width, '0').slice(-width);
}

export function fakeDigest(s: string): string {
  let out = '';
  for (let i = 0; out.length < 64; i++) out += hex(mix(hashString(s), i), 8);
  return out;
}

export function uidFrom(a: number, b: number): string {
  const p = (i: number) => hex(mix(a, b * 8 + i), 8);
  const x = p(0) + p(1) + p(2) + p(3);
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-4${x.slice(13, 16)}-a${x.slice(17, 20)}-${x.slice(20, 32)}`;
}
