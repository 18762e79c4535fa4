import { pooledRandomBytes } from './random-pool.js';

export type IdPrefix = 'org' | 'mem' | 'tok' | 'snp' | 'brd' | 'crd' | 'crit' | 'todo' | 'ms' | 'sub' | 'ses' | 'sil' | 'slc' | 'wh' | 'whd' | 'cmt' | 'ntf';

const ALPHABET = '0123456789abcdefghijklmnopqrstuvwxyz';

/** Opaque identifier with a type prefix (`snp_…`): 16 random base36 characters, about 82 bits. */
export function newId(prefix: IdPrefix): string {
  const bytes = pooledRandomBytes(16);
  let out = '';
  for (const b of bytes) out += ALPHABET[b % 36];
  return `${prefix}_${out}`;
}

/**
 * How a key given for a board (`brd`) or milestone (`ms`) finds it: an id as given, else its
 * slug or ref, which are compared lowercased.
 */
export function keyLookup(key: string, prefix: IdPrefix): { byId: boolean; value: string } {
  const byId = hasIdPrefix(key, prefix);
  return { byId, value: byId ? key : key.toLowerCase() };
}

/** True when `value` looks like an id of that type; used to tell ids from slugs and refs. */
export function hasIdPrefix(value: string, prefix: IdPrefix): boolean {
  return value.startsWith(`${prefix}_`);
}
