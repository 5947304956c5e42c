/**
 * The MCP SDK client's OAuth module (`client/auth.js`) for the simulator's bundled client
 * (scripts/postbuild.mjs puts this in its place): the same module, required from node_modules on the first call
 * of `auth` or `extractWWWAuthenticateParams` instead of being evaluated with the client. Its Streamable HTTP
 * transport calls either only when it was given an `authProvider`, which the simulator never gives; loaded with
 * the client, the module and the OAuth metadata schemas it builds (`shared/auth.js`) cost ~7 ms of CPU in every
 * simulator that connects an MCP server. Loaded, it also reads `globalThis.crypto` through `pkce-challenge`,
 * which makes Node 20 build its Web Crypto (~18 ms).
 *
 * `UnauthorizedError` is defined here, as the module defines it: in the bundle only the transport makes one
 * (the real `auth` returns a result and throws no `UnauthorizedError`), so the bundle sees a single class.
 */
import type * as ClientAuth from '@modelcontextprotocol/sdk/client/auth.js';
import { requireAsMcpSdk } from './mcp-sdk-require.js';

let real: typeof ClientAuth | undefined;
/** The SDK's own module, required beside its client on first use. */
function clientAuth(): typeof ClientAuth {
  real ??= requireAsMcpSdk('./auth.js') as typeof ClientAuth;
  return real;
}

/** The SDK's `UnauthorizedError` (the same class body). */
export class UnauthorizedError extends Error {
  constructor(message?: string) {
    super(message ?? 'Unauthorized');
  }
}

/** The SDK's `auth`, loaded on the first call. */
export const auth: typeof ClientAuth.auth = (provider, options) => clientAuth().auth(provider, options);

/** The SDK's `extractWWWAuthenticateParams`, loaded on the first call. */
export const extractWWWAuthenticateParams: typeof ClientAuth.extractWWWAuthenticateParams = (response) =>
  clientAuth().extractWWWAuthenticateParams(response);
