/**
 * `pkce-challenge` for the simulator's bundled MCP client (scripts/postbuild.mjs puts it in place of the package
 * the SDK's OAuth code imports): the same package, loaded from node_modules on its first use instead of when the
 * client is. As it loads, the package reads `globalThis.crypto`, which makes Node 20 build its Web Crypto: about
 * 18 ms of CPU in every simulator that connects an MCP server, for a PKCE pair only an OAuth flow ever makes.
 */
import { requireAsMcpSdk } from './mcp-sdk-require.js';

/** A PKCE verifier and its S256 challenge, as the package returns them. */
export interface PkcePair {
  /** The verifier. */
  code_verifier: string;
  /** Its challenge (S256). */
  code_challenge: string;
}

/** The package's default export, loaded on the first call. */
export default async function pkceChallenge(length?: number): Promise<PkcePair> {
  const pkce = requireAsMcpSdk('pkce-challenge') as { default: (length?: number) => Promise<PkcePair> };
  return pkce.default(length);
}
