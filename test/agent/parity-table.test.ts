/**
 * docs/python-parity.md: every row's agy-sdk name is an export of `agy-sdk`, `agy-sdk/testing` or
 * `agy-sdk/connection` (agy's own session options, the transport errors), a member of
 * one, or an `AgentConfig` field (the Python names: docs/reference/design-sources.md#seed-003-the-python-sdk).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { agentConfigSchema } from '../../src/agent/config-schema.js';
import * as connection from '../../src/connection/index.js';
import { ChatResponse } from '../../src/conversation/chat-response.js';
import { Conversation } from '../../src/conversation/conversation.js';
import * as sdk from '../../src/index.js';
import * as testing from '../../src/testing/index.js';
import { createToolContext, StateStore } from '../../src/tools/tool-context.js';

const root = join(import.meta.dirname, '../..');
const doc = readFileSync(join(root, 'docs/python-parity.md'), 'utf8');

/** Every name the entry points export, values and types (read from their export lists). */
function exportedNames(file: string): Set<string> {
  const text = readFileSync(join(root, file), 'utf8');
  const names = new Set<string>();
  for (const block of text.matchAll(/export (?:type )?\{([^}]*)\}/g))
    for (const entry of block[1]!.split(','))
      names.add(
        entry
          .trim()
          .replace(/^type /, '')
          .split(/\s+as\s+/)
          .at(-1)!,
      );
  return names;
}
const exported = new Set([
  ...exportedNames('src/index.ts'),
  ...exportedNames('src/testing/index.ts'),
  ...exportedNames('src/connection/index.ts'),
]);

/** Values whose members a row may name: runtime exports, and the type-only classes and interfaces. */
const values: Record<string, unknown> = {
  ...sdk,
  ...testing,
  ...connection,
  ChatResponse,
  Conversation,
  ToolContext: createToolContext({}, new StateStore(), new AbortController().signal),
};

function hasMember(owner: unknown, member: string): boolean {
  if (owner === null || (typeof owner !== 'object' && typeof owner !== 'function')) return false;
  if (member in owner) return true;
  const proto = (owner as { prototype?: object }).prototype;
  if (proto && member in proto) return true;
  // Getters and methods defined on the class's instances' prototype chain.
  return proto ? Object.getOwnPropertyNames(proto).includes(member) : false;
}

const rows = [...doc.matchAll(/^\| (.+?) \| `([^`]+)` \|/gm)]
  .map((m) => ({ python: m[1]!, name: m[2]! }))
  .filter((r) => r.python !== 'Python');

describe('docs/python-parity.md', () => {
  it('has rows for the Python SDK surface', () => {
    expect(rows.length).toBeGreaterThan(60);
  });

  it.each(rows)('$python → $name exists', ({ name }) => {
    const [head, member] = name.split('.') as [string, string | undefined];
    if (head === 'AgentConfig') {
      expect(member, name).toBeDefined();
      expect(Object.keys(agentConfigSchema().shape), name).toContain(member);
      return;
    }
    expect(exported.has(head), `${head} is exported`).toBe(true);
    if (member !== undefined) expect(hasMember(values[head], member), name).toBe(true);
  });
});
