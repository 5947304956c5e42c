/**
 * The per-session secret that prefixes every listener path. Only agy's config files (written by the SDK)
 * carry it, so another local process or a browser page that finds the port still cannot call our tools.
 */
import { hash, randomBytes, timingSafeEqual } from 'node:crypto';

/** Bytes of randomness in a token: 256 bits, well above the 128 needed to make guessing hopeless. */
export const TOKEN_BYTES = 32;

/** A fresh random token: 32 bytes as base64url (43 characters of `[A-Za-z0-9_-]`, safe in a URL path). */
export function createToken(): string {
  return randomBytes(TOKEN_BYTES).toString('base64url');
}

/**
 * Compares a presented token with the expected one in time independent of where they differ and of the
 * presented length: both sides are hashed to 32 bytes first, which `timingSafeEqual` requires anyway.
 */
export function tokensEqual(presented: string, expected: string): boolean {
  const a = hash('sha256', presented, 'buffer');
  const b = expectedDigest(expected);
  // Equal SHA-256 digests mean equal strings (collisions are out of reach), so no separate length check.
  return timingSafeEqual(a, b);
}

/**
 * The last expected token and its digest: a listener compares against the same token on every request,
 * so hashing it once saves half the work on the hot path.
 */
let lastExpected: string | undefined;
let lastDigest: Buffer | undefined;

function expectedDigest(expected: string): Buffer {
  if (expected !== lastExpected || lastDigest === undefined) {
    lastDigest = hash('sha256', expected, 'buffer');
    lastExpected = expected;
  }
  return lastDigest;
}
