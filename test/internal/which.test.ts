// PATH lookup and the AgyNotFoundError it feeds list every path once, even when PATH repeats a directory.
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveAgyBinary } from '../../src/connection/agy/stream-json/binary.js';
import { AgyNotFoundError } from '../../src/errors.js';
import { findOnPath } from '../../src/internal/which.js';

// Made by a hook, not while vitest collects the file (a `vitest list` would leave it behind).
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'agy-sdk-which-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function notFound(fn: () => unknown): AgyNotFoundError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(AgyNotFoundError);
    return error as AgyNotFoundError;
  }
  throw new Error('expected AgyNotFoundError');
}

describe('PATH lookup', () => {
  it('tries a repeated PATH directory once (also with a trailing slash)', () => {
    const { found, tried } = findOnPath(['agy'], {
      PATH: '/nonexistent-a:/nonexistent-b:/nonexistent-a/:/nonexistent-b',
    });
    expect(found).toBeUndefined();
    expect(tried).toEqual(['/nonexistent-a/agy', '/nonexistent-b/agy']);
  });

  it('AgyNotFoundError lists each PATH entry once, in order', () => {
    const err = notFound(() =>
      resolveAgyBinary({ env: { PATH: '/nonexistent-b:/nonexistent-a:/nonexistent-b:/nonexistent-a' } }),
    );
    expect(err.tried).toEqual(['/nonexistent-b/agy', '/nonexistent-a/agy']);
    expect(err.message.match(/\/nonexistent-b\/agy/g)).toHaveLength(1);
  });

  it('the same explicit path as agyPath and AGY_PATH is listed once', () => {
    const err = notFound(() =>
      resolveAgyBinary({ agyPath: '/nonexistent/agy', env: { AGY_PATH: '/nonexistent/agy' } }),
    );
    expect(err.tried).toEqual(['/nonexistent/agy']);
  });

  it('still finds the binary in a later directory', () => {
    const bin = join(dir, 'agy');
    writeFileSync(bin, '#!/bin/sh\n');
    chmodSync(bin, 0o700);
    expect(resolveAgyBinary({ env: { PATH: `/nonexistent-a:/nonexistent-a:${dir}` } })).toBe(bin);
  });
});
