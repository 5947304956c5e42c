import { describe, expect, it } from 'vitest';
import { loopbackHosts, parseRoute } from '../../../src/connection/tool-server/listener-request.js';
import { createToken } from '../../../src/internal/token.js';

describe('listener routes', () => {
  const token = createToken();
  it('parses /<token>/<kind>/<name> on the raw path', () => {
    expect(parseRoute(`/${token}/mcp/tools`, token)).toEqual({ kind: 'mcp', name: 'tools' });
    expect(parseRoute(`/${token}/hook/PreToolUse?x=1`, token)).toEqual({ kind: 'hook', name: 'PreToolUse' });
    // A query is ignored, slashes in it included.
    expect(parseRoute(`/${token}/mcp/tools?a=/b/c`, token)).toEqual({ kind: 'mcp', name: 'tools' });
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
      `/${token}?/mcp/x`,
      `/${token}/mcp?/x`,
      `/${token}/mcp/x/`,
      `/${token}/mcp/x?y/z/w`.replace('?y/z/w', '/?'),
      `//${token}/mcp/x`,
      '',
      '/',
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
