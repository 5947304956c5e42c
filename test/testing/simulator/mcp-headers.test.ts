// The simulator's own `Headers` (testing/simulator/mcp-headers.ts), injected into its bundled MCP client in
// place of undici's: held equal to Node's global (undici's) `Headers` on what the MCP SDK's transport does with
// one (build from a record or pairs, append, set, delete, get, has, iterate), on random operation sequences.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { Headers } from '../../../src/testing/simulator/mcp-headers.js';

const names = fc.constantFrom(
  'Accept',
  'accept',
  'Content-Type',
  'MCP-Session-Id',
  'mcp-protocol-version',
  'X-A',
  'x-a',
  'Last-Event-ID',
);
const values = fc.stringMatching(/^[ \t]?[A-Za-z0-9 ,;=/.*-]{0,12}[ \t]?$/);
const op = fc.oneof(
  fc.record({ kind: fc.constant('append' as const), name: names, value: values }),
  fc.record({ kind: fc.constant('set' as const), name: names, value: values }),
  fc.record({ kind: fc.constant('delete' as const), name: names }),
);

/** Everything observable of a Headers, to compare two of them. */
function view(h: {
  entries(): IterableIterator<[string, string]>;
  get(n: string): string | null;
  has(n: string): boolean;
}) {
  return {
    entries: [...h.entries()],
    got: ['ACCEPT', 'content-type', 'mcp-session-id', 'X-a', 'absent'].map((n) => [h.get(n), h.has(n)]),
  };
}

describe('the simulator’s Headers behave as undici’s on the MCP SDK’s operations', () => {
  it('from a record or pairs, then any sequence of append/set/delete', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(names, values), { maxLength: 4 }),
        fc.boolean(),
        fc.array(op, { maxLength: 12 }),
        (init, asRecord, ops) => {
          const source = asRecord ? Object.fromEntries(init) : init;
          const ours = new Headers(source);
          const theirs = new globalThis.Headers(source);
          for (const o of ops) {
            if (o.kind === 'delete') {
              ours.delete(o.name);
              theirs.delete(o.name);
            } else {
              ours[o.kind](o.name, o.value);
              theirs[o.kind](o.name, o.value);
            }
          }
          expect(view(ours)).toEqual(view(theirs));
          // Built from another Headers or its pairs (values are normalized again, as the standard says).
          expect(view(new Headers(theirs))).toEqual(view(new globalThis.Headers(theirs)));
          expect(view(new Headers(ours))).toEqual(view(new globalThis.Headers([...ours])));
          expect(Object.fromEntries(ours)).toEqual(Object.fromEntries(theirs.entries()));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('refuses what undici refuses, by name', () => {
    for (const [name, value] of [
      ['bad name', 'x'],
      ['', 'x'],
      ['x', 'a\r\nInjected: 1'],
      ['x', 'a\0b'],
    ] as const) {
      expect(() => new globalThis.Headers({ [name]: value })).toThrow(TypeError);
      expect(() => new Headers({ [name]: value })).toThrow(TypeError);
    }
    expect(() => new Headers([['only-a-name'] as unknown as [string, string]])).toThrow(/name and a value/);
  });

  it('reads as Headers in forEach, keys, values and its tag', () => {
    const h = new Headers({ B: '2', a: '1' });
    const seen: string[] = [];
    h.forEach((value, name, self) => {
      seen.push(`${name}=${value}`);
      expect(self).toBe(h);
    });
    expect(seen).toEqual(['a=1', 'b=2']);
    expect([...h.keys()]).toEqual(['a', 'b']);
    expect([...h.values()]).toEqual(['1', '2']);
    expect(Object.prototype.toString.call(h)).toBe('[object Headers]');
  });
});
