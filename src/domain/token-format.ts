import crypto, { randomInt, timingSafeEqual } from 'node:crypto';

/**
 * Token format (contract §1): `tack_live_` + random base62 + a 6-character base62 CRC32
 * checksum, so scanners can recognise a leaked token and a typo is rejected without a
 * database look-up. Only the SHA-256 of a token is stored.
 */
export const TOKEN_PREFIX = 'tack_live_';
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const RANDOM_LENGTH = 32;
const CHECKSUM_LENGTH = 6;
const BODY = /^[A-Za-z0-9]+$/;

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

export function crc32(text: string): number {
  let crc = 0xffffffff;
  for (const byte of Buffer.from(text, 'utf8')) crc = CRC_TABLE[(crc ^ byte) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

export function base62Checksum(text: string): string {
  let n = crc32(text);
  let out = '';
  while (n > 0) {
    out = BASE62[n % 62] + out;
    n = Math.floor(n / 62);
  }
  return out.padStart(CHECKSUM_LENGTH, '0');
}

/** A new token: the checksum covers the random part. */
export function generateToken(): string {
  let random = '';
  for (let i = 0; i < RANDOM_LENGTH; i++) random += BASE62[randomInt(62)];
  return `${TOKEN_PREFIX}${random}${base62Checksum(random)}`;
}

/**
 * Checks shape and checksum without the database. The checksum is accepted over the random
 * part (what tack issues) or over everything before it (prefix included), since the contract's
 * "checksum of the rest" reads either way and both leave a typo one chance in 56 billion.
 */
export function isWellFormedToken(token: string): boolean {
  if (!token.startsWith(TOKEN_PREFIX)) return false;
  const body = token.slice(TOKEN_PREFIX.length);
  if (body.length < 32 || body.length > 128 || !BODY.test(body)) return false;
  const random = body.slice(0, -CHECKSUM_LENGTH);
  const checksum = body.slice(-CHECKSUM_LENGTH);
  return checksum === base62Checksum(random) || checksum === base62Checksum(TOKEN_PREFIX + random);
}

// One-shot hashing (Node 20.12+) skips the Hash object's set-up on every request's token.
const sha256Hex: (text: string) => string =
  typeof crypto.hash === 'function' ? (text) => crypto.hash('sha256', text, 'hex') : (text) => crypto.createHash('sha256').update(text, 'utf8').digest('hex');

export function hashToken(token: string): string {
  return sha256Hex(token);
}

/** Constant-time comparison of two hex digests. */
export function sameDigest(a: string, b: string): boolean {
  const ba = Buffer.from(a, 'hex');
  const bb = Buffer.from(b, 'hex');
  return ba.length === bb.length && timingSafeEqual(ba, bb);
}

/** The part of a token that is safe to show: prefix and first characters. */
export function tokenHint(token: string): string {
  return `${token.slice(0, TOKEN_PREFIX.length + 4)}…`;
}
