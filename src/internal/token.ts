/**
 * The per-session secret that prefixes every listener path, and the gateway's per-run key. Only agy's config
 * files (written by the SDK) carry the first, and only the clients the SDK configures the second, so another
 * local process or a browser page that finds the port still cannot call our tools or spend the upstream's key.
 */
import { randomBytes } from 'node:crypto';

/** Bytes of randomness in a token: 256 bits, well above the 128 needed to make guessing hopeless. */
export const TOKEN_BYTES = 32;

/** A fresh random token: 32 bytes as base64url (43 characters of `[A-Za-z0-9_-]`, safe in a URL path). */
export function createToken(): string {
  return randomBytes(TOKEN_BYTES).toString('base64url');
}

/**
 * Compares a presented token with the expected one in time independent of where they differ: every UTF-16
 * unit is compared, with no early exit. The length of a token is public (every token is {@link TOKEN_BYTES}
 * bytes as 43 base64url characters), so a presented value of another length is refused at once.
 *
 * A JavaScript loop rather than `crypto.timingSafeEqual`: this runs first on every listener request, and the
 * UTF-8 encoding, the `subarray` and the call into C++ that `timingSafeEqual` needs cost about 2 % of a whole
 * tool call's round trip when the process wakes for it (tool-roundtrip bench). Each unit is compared as a
 * 16-bit value, so a non-ASCII character never matches a token's ASCII one (no truncation to bytes).
 */
export function tokensEqual(presented: string, expected: string): boolean {
  const length = expected.length;
  if (presented.length !== length) return false;
  let difference = 0;
  for (let i = 0; i < length; i++) difference |= presented.charCodeAt(i) ^ expected.charCodeAt(i);
  return difference === 0;
}
