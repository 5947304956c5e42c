/**
 * The per-session secret that prefixes every listener path, and the gateway's per-run key. Only agy's config
 * files (written by the SDK) carry the first, and only the clients the SDK configures the second, so another
 * local process or a browser page that finds the port still cannot call our tools or spend the upstream's key.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';

/** Bytes of randomness in a token: 256 bits, well above the 128 needed to make guessing hopeless. */
export const TOKEN_BYTES = 32;

/** A fresh random token: 32 bytes as base64url (43 characters of `[A-Za-z0-9_-]`, safe in a URL path). */
export function createToken(): string {
  return randomBytes(TOKEN_BYTES).toString('base64url');
}

/**
 * Compares a presented token with the expected one in time independent of where they differ. The length of
 * a token is public (every token is {@link TOKEN_BYTES} bytes as 43 base64url characters), so a presented
 * token of another byte length is refused at once; one of the right length is compared byte for byte with
 * `timingSafeEqual`. (Hashing both sides to equal lengths first cost a SHA-256 per request, about a tenth of
 * the listener's own CPU on a tool call.)
 */
export function tokensEqual(presented: string, expected: string | Buffer): boolean {
  // A listener passes its token's bytes, made once: one buffer less on every request.
  const want = typeof expected === 'string' ? Buffer.from(expected, 'utf8') : expected;
  // Fewer UTF-16 units than bytes is never equal (each unit takes at least one byte); more cannot be either.
  if (presented.length !== want.length) return false;
  // The presented bytes go into one reused buffer instead of a new one per request. It has room for a few
  // bytes more than a token, so a presented value with any non-ASCII character writes more bytes than the
  // token has and is refused by length, as a fresh buffer would be.
  if (scratch.length < want.length + 4) scratch = Buffer.allocUnsafe(want.length + 4);
  const written = scratch.write(presented, 0, 'utf8');
  return written === want.length && timingSafeEqual(scratch.subarray(0, written), want);
}

/** Where {@link tokensEqual} writes the presented bytes (only ever read within the one call). */
let scratch = Buffer.alloc(TOKEN_BYTES * 2);
