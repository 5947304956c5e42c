/**
 * Client authentication: the per-run token arrives as `x-goog-api-key` (SDKs, Gemini CLI, agy), `?key=`
 * (Google's curl docs) or `Authorization: Bearer` (docs/reference/gemini-api.md#authentication), and is
 * compared in constant time (`internal/token.ts`, the session listener's comparison: a token's length is
 * public, so a key of another length is refused at once; one SHA-256 per request, as this file used to
 * hash, was about a fifth of the gateway's own work before the upstream call).
 */
import type { IncomingMessage } from 'node:http';
import { tokensEqual } from '../internal/token.js';

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

/** Constant-time check of a presented key against the token. */
export function tokenMatches(presented: string | undefined, token: string): boolean {
  return presented !== undefined && tokensEqual(presented, token);
}
