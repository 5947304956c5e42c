import { describe, expect, it } from 'vitest';
import { createToken, TOKEN_BYTES, tokensEqual } from '../../src/internal/token.js';

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

  it('refuses a value of the token’s length with non-ASCII characters, whose low bytes would spell it', () => {
    const token = createToken();
    const last = token.charCodeAt(42);
    // Same UTF-16 length, more UTF-8 bytes: refused by length.
    expect(tokensEqual(`${token.slice(0, -1)}é`, token)).toBe(false);
    // U+0100 + c truncates to c in latin1: the comparison must not be made on truncated bytes.
    expect(tokensEqual(`${token.slice(0, -1)}${String.fromCharCode(0x100 + last)}`, token)).toBe(false);
    expect(tokensEqual(`${token.slice(0, 41)}\u{1F600}`.slice(0, 43), token)).toBe(false);
    // The reused buffer holds nothing over: the right token still matches after each refusal.
    expect(tokensEqual(token, token)).toBe(true);
  });
});
