// Which servers a replay may reach (src/testing/cassette/replay-remote.ts): loopback only from the URL's literal
// host, remote ones only when `allowRemoteServers` names them; the option is checked and always written to the
// simulator's environment. Guide: docs/guides/testing-your-agent.md#what-a-replay-may-touch.
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../../src/errors.js';
import { replayCassette } from '../../../src/testing/cassette/index.js';
import {
  isLoopbackUrl,
  parseRemoteServers,
  REMOTE_SERVERS_ENV,
  remoteRefusal,
} from '../../../src/testing/cassette/replay-remote.js';

describe('isLoopbackUrl', () => {
  it.each([
    'http://localhost:8080/mcp',
    'http://LOCALHOST/mcp',
    'http://127.0.0.1:1/mcp',
    'http://127.255.3.4/mcp',
    'http://[::1]:9000/mcp',
    'http://[::ffff:127.0.0.1]/mcp',
    // The URL parser's own forms of 127.0.0.1.
    'http://0x7f.1/mcp',
    'http://2130706433/mcp',
  ])('%s is loopback', (url) => {
    expect(isLoopbackUrl(url)).toBe(true);
  });

  it.each([
    'http://example.invalid/mcp',
    'https://mcp.notion.com/mcp',
    // Names that usually resolve to loopback still count as remote: only the literal host decides.
    'http://localhost.localdomain/mcp',
    'http://app.localhost/mcp',
    'http://localhost./mcp',
    'http://127.0.0.1.nip.io/mcp',
    'http://0.0.0.0/mcp',
    'http://10.0.0.1/mcp',
    'http://128.0.0.1/mcp',
    'http://[::2]/mcp',
    'http://[::ffff:10.0.0.1]/mcp',
    'not a url',
  ])('%s is not', (url) => {
    expect(isLoopbackUrl(url)).toBe(false);
  });
});

describe('remoteRefusal', () => {
  it('passes loopback servers whatever the opt-in', () => {
    expect(remoteRefusal('http://127.0.0.1:5/mcp', ['x'], new Set())).toBeUndefined();
  });

  it('refuses a remote server unless it is allowed by one of its names, or all are', () => {
    const url = 'https://mcp.example.com:8443/mcp';
    expect(remoteRefusal(url, ['agy-sdk_notion', 'notion'], new Set())).toBe(
      'mcp.example.com:8443 is not a loopback host and this replay does not allow remote servers (allowRemoteServers)',
    );
    expect(remoteRefusal(url, ['agy-sdk_notion', 'notion'], new Set(['github']))).toMatch(/not a loopback/);
    expect(remoteRefusal(url, ['agy-sdk_notion', 'notion'], new Set(['notion']))).toBeUndefined();
    expect(remoteRefusal(url, ['notion'], 'all')).toBeUndefined();
  });
});

describe('the allowRemoteServers option', () => {
  it('is written to the environment, and empty when not given so an inherited value cannot widen a replay', () => {
    expect(replayCassette('/c.jsonl').env[REMOTE_SERVERS_ENV]).toBe('');
    expect(replayCassette('/c.jsonl', { allowRemoteServers: false }).env[REMOTE_SERVERS_ENV]).toBe('');
    expect(replayCassette('/c.jsonl', { allowRemoteServers: true }).env[REMOTE_SERVERS_ENV]).toBe('*');
    expect(
      replayCassette('/c.jsonl', { allowRemoteServers: ['notion', 'git-hub_2'] }).env[REMOTE_SERVERS_ENV],
    ).toBe('notion,git-hub_2');
  });

  it.each([
    [['ok', 'has space'], /allowRemoteServers: \[1\] must be a server name/],
    [['a,b'], /\[0\] must be a server name .*"a,b"/],
    [[''], /\[0\] must be a server name/],
    [[7], /\[0\] must be a server name .*7/],
    ['notion', /must be true, false or an array of server names, got string/],
  ])('refuses %j with a ConfigError naming the option', (value, message) => {
    let error: unknown;
    try {
      replayCassette('/c.jsonl', { allowRemoteServers: value as never });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).field).toBe('allowRemoteServers');
    expect((error as Error).message).toMatch(message);
  });

  it('the simulator reads back what replayCassette writes, and names what is wrong otherwise', () => {
    expect(parseRemoteServers(undefined)).toEqual(new Set());
    expect(parseRemoteServers('')).toEqual(new Set());
    expect(parseRemoteServers('*')).toBe('all');
    expect(parseRemoteServers('notion,git-hub_2')).toEqual(new Set(['notion', 'git-hub_2']));
    expect(parseRemoteServers('notion,,x')).toMatch(/\[1\] must be a server name/);
  });
});
