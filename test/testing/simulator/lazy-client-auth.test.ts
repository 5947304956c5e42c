// The simulator's stand-in for the MCP SDK client's OAuth module (the bundle's `client/auth.js`) is the SDK's own
// module once called: the same answers as the package's functions, from the package loaded on first use.
import * as sdkAuth from '@modelcontextprotocol/sdk/client/auth.js';
import { describe, expect, it } from 'vitest';
import {
  auth,
  extractWWWAuthenticateParams,
  UnauthorizedError,
} from '../../../src/testing/simulator/lazy-client-auth.js';

/** What the transport hands it: something with `headers.get`. */
const answer = (wwwAuthenticate: string | null) =>
  ({
    headers: { get: (name: string) => (name === 'WWW-Authenticate' ? wwwAuthenticate : null) },
  }) as Response;

describe('lazy-client-auth', () => {
  it("extractWWWAuthenticateParams answers as the SDK's", () => {
    const header =
      'Bearer error="insufficient_scope", scope="tools:call", resource_metadata="https://mcp.example/.well-known/oauth-protected-resource"';
    const ours = extractWWWAuthenticateParams(answer(header));
    expect(ours).toEqual(sdkAuth.extractWWWAuthenticateParams(answer(header)));
    expect(ours).toMatchObject({ scope: 'tools:call', error: 'insufficient_scope' });
    expect(ours.resourceMetadataUrl?.href).toBe('https://mcp.example/.well-known/oauth-protected-resource');
    expect(extractWWWAuthenticateParams(answer(null))).toEqual({});
  });

  it("auth runs the SDK's flow: a provider without client information must be able to register", async () => {
    // No authorization server answers (discovery falls back to defaults), and the provider cannot save a
    // registration: the SDK's own error comes back through the stand-in.
    const fetchFn = async () => new Response('no', { status: 404 });
    const provider = {
      redirectUrl: 'http://127.0.0.1:1/callback',
      clientMetadata: { redirect_uris: ['http://127.0.0.1:1/callback'] },
      clientInformation: () => undefined,
      tokens: () => undefined,
      saveTokens: () => {},
      redirectToAuthorization: () => {},
      saveCodeVerifier: () => {},
      codeVerifier: () => 'v',
    };
    const options = { serverUrl: 'http://127.0.0.1:1/mcp', fetchFn };
    const sdkFailure = await sdkAuth.auth(provider, options).then(
      () => 'resolved',
      (err: Error) => err.message,
    );
    const ours = await auth(provider, options).then(
      () => 'resolved',
      (err: Error) => err.message,
    );
    expect(ours).toBe(sdkFailure);
    expect(ours).toMatch(/must be saveable for dynamic registration/);
  });

  it('UnauthorizedError has the SDK’s message default', () => {
    expect(new UnauthorizedError().message).toBe(new sdkAuth.UnauthorizedError().message);
    expect(new UnauthorizedError('x')).toBeInstanceOf(Error);
  });
});
