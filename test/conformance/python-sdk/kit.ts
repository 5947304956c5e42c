/**
 * Shared pieces of the Python SDK conformance suite (test/conformance/python-sdk/README.md): the pinned source
 * of the ported tests, and small builders for what those tests construct by hand. Public API only.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import type { HookToolCall, OperationContext, PreToolCallHook } from '../../../src/index.js';
import { InMemoryConnection, type InMemoryConnectionOptions } from '../../../src/testing/index.js';

/** Where the ported tests come from: `google-antigravity` 0.1.14 (its CHANGELOG's last entry at this commit). */
export const PYTHON_SDK_SOURCE = {
  repo: 'github.com/lovicho/antigravity-sdk-python',
  commit: '63b1ebe404f731da84c20ec126851498492df279',
} as const;

/**
 * Python's `_make_tool_call(name, server_name, **args)`: a tool call as hooks and policies see it. The
 * camelCase view is built the way the SDK's own normalizer does it for these flat test args.
 */
export function toolCall(name: string, args: Record<string, unknown> = {}, server?: string): HookToolCall {
  const normalizedArgs = Object.fromEntries(
    Object.entries(args).map(([k, v]) => [k.charAt(0).toLowerCase() + k.slice(1), v]),
  );
  return { id: `conv:${name}`, name, args, normalizedArgs, ...(server === undefined ? {} : { server }) };
}

/**
 * Python's tests run a decide hook with a bare `HookContext()`; the policy hook reads nothing from its context
 * (an ask-user handler gets it only when the hook runner supplies one), so none is given here.
 */
const NO_CONTEXT = undefined as unknown as OperationContext;

/** Python's `await hook.run(ctx, call)` for a `preToolCall` hook, as `{ allow, message }`. */
export async function decide(
  hook: PreToolCallHook,
  call: HookToolCall,
): Promise<{ allow: boolean; message: string }> {
  const decision = await hook.run(call, NO_CONTEXT);
  if (typeof decision === 'boolean') return { allow: decision, message: '' };
  // A hook may answer with the shorthand's `message` or the one decision's `reason`.
  const message =
    'message' in decision ? decision.message : 'reason' in decision ? decision.reason : undefined;
  return { allow: decision.allow, message: message ?? '' };
}

/** A logger that records nothing (the SDK logs denials and failures; these tests assert on results). */
export const quietLogger = { debug() {}, info() {}, warn() {}, error() {} };

/**
 * An in-memory connection that takes media parts, as agy's and the ACP backend do (Python's mocked connection
 * takes any prompt): attachments go to one private directory per test file, removed after the file.
 */
export function mediaConnections(): (options?: InMemoryConnectionOptions) => InMemoryConnection {
  let dir: string | undefined;
  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });
  return (options) => {
    const conn = new InMemoryConnection(options);
    return Object.assign(conn, {
      attachmentsDir: async () => {
        dir ??= mkdtempSync(join(tmpdir(), 'agy-sdk-conformance-'));
        return dir;
      },
    });
  };
}
