import { describe, expect, it } from 'vitest';
import { loopbackHosts, parseRoute } from '../../../src/connection/tool-server/listener-request.js';
import { createToken, TOKEN_BYTES, tokensEqual } from '../../../src/connection/tool-server/token.js';

describe('session token', () => {
  it('has 256 bits of randomness in a URL-safe form', () => {
    const token = createToken();
    expect(TOKEN_BYTES * 8).toBeGreaterThanOrEqual(128);
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(token, 'base64url')).toHaveLength(32);
    const many = new Set(Array.from({ length: 1000 }, createToken));
    expect(many.size).toBe(1000);
  });

  it('compares in constant time, safely across lengths', () => {
    const token = createToken();
    expect(tokensEqual(token, token)).toBe(true);
    expect(tokensEqual(`${token}`.slice(0), token)).toBe(true);
    expect(tokensEqual(token.slice(0, -1), token)).toBe(false);
    expect(tokensEqual(`${token}x`, token)).toBe(false);
    expect(tokensEqual('', token)).toBe(false);
    expect(tokensEqual('x'.repeat(10_000), token)).toBe(false);
    expect(tokensEqual(createToken(), token)).toBe(false);
  });
});

describe('listener routes', () => {
  const token = createToken();
  it('parses /<token>/<kind>/<name> on the raw path', () => {
    expect(parseRoute(`/${token}/mcp/tools`, token)).toEqual({ kind: 'mcp', name: 'tools' });
    expect(parseRoute(`/${token}/hook/PreToolUse?x=1`, token)).toEqual({ kind: 'hook', name: 'PreToolUse' });
    for (const path of [
      `/${token}/mcp/..%2f..`,
      `/${token}/mcp/a.b`,
      `/${token}/mcp/`,
      `/${token}/mcp`,
      `/${token}/other/x`,
      `/${token}/mcp/x/y`,
      `${token}/mcp/x`,
      '/mcp/x',
      `/${token.slice(1)}/mcp/x`,
      undefined,
      '*',
    ]) {
      expect(parseRoute(path, token), String(path).replace(token, '<token>')).toBeUndefined();
    }
  });

  it('knows the loopback host names of a port', () => {
    expect([...loopbackHosts(8080)]).toEqual(['127.0.0.1:8080', 'localhost:8080', '[::1]:8080']);
  });
});
