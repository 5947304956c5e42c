/** The fleet's Redis connection spec: a URL as given, or parts turned into one with credentials encoded. */
import { describe, expect, it } from 'vitest';
import { connectionUrl, fleetKeys } from '../../src/fleet/redis.js';

describe('fleet connection and keys', () => {
  it('builds the URL from parts, percent-encoding credentials and bracketing IPv6 hosts', () => {
    expect(connectionUrl('redis://h:1/2')).toBe('redis://h:1/2');
    expect(connectionUrl({})).toBe('redis://127.0.0.1:6379/0');
    expect(connectionUrl({ host: '::1', port: 7000, password: 'p@ss:w/rd', db: 3 })).toBe(
      'redis://:p%40ss%3Aw%2Frd@[::1]:7000/3',
    );
    expect(connectionUrl({ username: 'u', password: 'x', tls: true })).toBe('rediss://u:x@127.0.0.1:6379/0');
  });

  it('names its keys under BullMQ’s prefix and queue name', () => {
    const keys = fleetKeys({ name: 'q', prefix: 'p' });
    expect(keys.pause('agy:default')).toBe('p:q:agy:pause:agy:default');
    expect(keys.conversations).toBe('p:q:agy:conversations');
    expect(fleetKeys().pauseChannel).toBe('bull:agy-fleet:agy:pauses');
  });
});
