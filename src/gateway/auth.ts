/**
 * Client authentication: the per-run token arrives as `x-goog-api-key` (SDKs, Gemini CLI, agy), `?key=`
 * (Google's curl docs) or `Authorization: Bearer` (docs/reference/gemini-api.md#authentication). Compared in
 * constant time; digests first, so the comparison does not leak the token's length either.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

/** A fresh per-run token (256 bits, URL-safe). */
export function newToken(): string {
  return randomBytes(32).toString('base64url');
}

/** The key the client presented, from whichever place it used; `undefined` when none. */
export function presentedKey(req: IncomingMessage, url: URL): string | undefined {
  const header = req.headers['x-goog-api-key'];
  if (typeof header === 'string' && header.length > 0) return header;
  const auth = req.headers.authorization;
  if (typeof auth === 'string') {
    const match = /^Bearer\s+(.+)$/i.exec(auth.trim());
    if (match?.[1]) return match[1];
  }
  const query = url.searchParams.get('key');
  return query && query.length > 0 ? query : undefined;
}

const digest = (s: string): Buffer => createHash('sha256').update(s, 'utf8').digest();

/** The token whose digest is kept (a gateway asks with its one token on every request). */
let knownToken: string | undefined;
let knownDigest: Buffer | undefined;

/** Constant-time check of a presented key against the token. */
export function tokenMatches(presented: string | undefined, token: string): boolean {
  if (presented === undefined) return false;
  if (token !== knownToken || knownDigest === undefined) {
    knownDigest = digest(token);
    knownToken = token;
  }
  return timingSafeEqual(digest(presented), knownDigest);
}
