/**
 * The ACP backend's pure parts, checked against Gemini CLI 0.61's recorded ACP transcripts
 * (test/fixtures/acp/gemini-cli-0.61, facts in docs/reference/acp.md): wire → steps, usage, option choice,
 * outcome classification, capabilities, the same-minute rule of session/load, tool-name aliases in policies,
 * and the config table.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { capabilitiesOf } from '../../../src/connection/acp/capabilities.js';
import {
  AcpTurnSteps,
  argsFromContent,
  classifyRequestError,
  classifyStop,
  toolNameFromCallId,
  usageFromMeta,
} from '../../../src/connection/acp/normalize.js';
import { chooseOption } from '../../../src/connection/acp/permission-options.js';
import { acpCommandLine } from '../../../src/connection/acp/presets.js';
import {
  minuteOfSessionFile,
  msUntilMinuteTurned,
  SESSION_NOT_LOADABLE,
  sessionStartMinute,
} from '../../../src/connection/acp/session-load.js';
import { GEMINI_CLI_CAPABILITIES } from '../../../src/connection/index.js';
import { createHookToolCall } from '../../../src/hooks/args.js';
import { Agent, ConfigError, policy } from '../../../src/index.js';
import { evaluate } from '../../../src/policy/evaluate.js';
import { safeDefaults } from '../../../src/policy/presets.js';
import { workspaceOnly } from '../../../src/policy/workspace.js';
import type { AcpPermissionOption, AcpSessionUpdate } from '../../../src/protocol/acp.js';

const DIR = join(import.meta.dirname, '../../fixtures/acp/gemini-cli-0.61');
// biome-ignore lint/suspicious/noExplicitAny: recorded JSON-RPC messages, read field by field in the assertions.
type Recorded = any;
type Line = {
  dir: 'in' | 'out';
  msg: Record<string, unknown> & { method?: string; params?: Recorded; result?: Recorded; error?: Recorded };
};
const transcript = (name: string): Line[] =>
  readFileSync(join(DIR, name), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l));

describe('Gemini CLI transcripts → the backend', () => {
  it('initialize + session/new yield GEMINI_CLI_CAPABILITIES (docs/reference/acp.md#initialize)', () => {
    const t = transcript('initialize-session-new.jsonl');
    const init = t.find((l) => l.dir === 'in' && l.msg.id === 0)!.msg.result;
    const session = t.find((l) => l.dir === 'in' && l.msg.id === 1)!.msg.result;
    expect(capabilitiesOf(init, session)).toEqual(GEMINI_CLI_CAPABILITIES);
    expect(capabilitiesOf(init, {}).setModel).toBe(false);
  });

  it('thoughts and text become steps; _meta.quota becomes usage with null thinking/cache (#thoughts-and-text, #usage)', () => {
    const t = transcript('prompt-thought-text.jsonl');
    const steps = new AcpTurnSteps('s', (n) => ({ name: n ?? '?', wireName: n ?? '?' }), 0);
    const out = t
      .filter((l) => l.msg.method === 'session/update')
      .flatMap((l) => steps.update(l.msg.params.update as AcpSessionUpdate));
    expect(out.map((s) => s.thoughtDelta ?? s.textDelta)).toEqual(['****\nweighing it', 'Hel', 'lo!']);
    expect(steps.text).toBe('Hello!');
    const result = t.find((l) => l.dir === 'in' && l.msg.result)!.msg.result;
    const usage = usageFromMeta(result._meta);
    expect(usage).toEqual({
      inputTokens: 21,
      outputTokens: 5,
      thinkingTokens: null,
      cacheReadTokens: null,
      totalTokens: 26,
    });
    const [done] = steps.finish(usage, {});
    expect(done).toMatchObject({ type: 'agent_response', state: 'DONE', usage });
    expect(usageFromMeta(undefined)).toBeNull();
  });

  it('an MCP permission request: tool name from toolCallId, args from the JSON block, proceed_once chosen (#mcp-tools)', () => {
    const t = transcript('mcp-tool-permission.jsonl');
    const req = t.find((l) => l.msg.method === 'session/request_permission')!.msg.params;
    expect(toolNameFromCallId(req.toolCall.toolCallId)).toBe('mcp_facts_lookup');
    expect(argsFromContent(req.toolCall.content)).toEqual({ key: 'k1' });
    expect(chooseOption(req.options, true)).toEqual({
      allowed: true,
      response: { outcome: { outcome: 'selected', optionId: 'proceed_once' } },
    });
    expect(chooseOption(req.options, false).response).toEqual({
      outcome: { outcome: 'selected', optionId: 'cancel' },
    });
  });

  it('a write permission request: diff → file_path and content (#permission-requests)', () => {
    const t = transcript('permission-reject.jsonl');
    const req = t.find((l) => l.msg.method === 'session/request_permission')!.msg.params;
    expect(toolNameFromCallId(req.toolCall.toolCallId)).toBe('write_file');
    const args = argsFromContent(req.toolCall.content);
    expect(args.file_path).toMatch(/\.txt$|<WORKSPACE>/);
    expect(typeof args.content).toBe('string');
  });

  it('never an "always" option; fail closed without a once-only one (#always-options)', () => {
    const always: AcpPermissionOption[] = [
      { optionId: 'a', name: 'a', kind: 'allow_always' },
      { optionId: 'r', name: 'r', kind: 'reject_always' },
    ];
    expect(chooseOption(always, true)).toEqual({
      allowed: false,
      response: { outcome: { outcome: 'cancelled' } },
    });
    expect(chooseOption([{ optionId: 'x', name: 'x', kind: 'reject_once' }], true)).toEqual({
      allowed: false,
      response: { outcome: { outcome: 'selected', optionId: 'x' } },
    });
  });

  it('a terminal 429 is rate_limited (#rate-limits); the same-minute load error is recognised (#session-load)', () => {
    const err = transcript('rate-limit-429.jsonl').find((l) => l.msg.error)!.msg.error;
    expect(classifyRequestError(err.code, err.message).status).toBe('rate_limited');
    expect(classifyRequestError(undefined, 'Individual quota reached').status).toBe('quota_exhausted');
    expect(classifyRequestError(-32000, 'Authentication required.').status).toBe('auth_failed');
    expect(classifyRequestError(500, 'boom').status).toBe('error');
    const load = transcript('session-load-same-minute.jsonl').find((l) => l.msg.error)!.msg.error;
    expect(SESSION_NOT_LOADABLE.test(load.data.details)).toBe(true);
  });
});

describe('fail-closed stop reasons', () => {
  const base = { text: 'answer', denials: 0, stopAsked: undefined };
  it.each([
    ['end_turn', base, 'success'],
    ['end_turn', { ...base, text: '  ' }, 'error'],
    ['end_turn', { ...base, denials: 1 }, 'denied'],
    ['cancelled', base, 'error'],
    ['cancelled', { ...base, stopAsked: 'interrupted' as const }, 'interrupted'],
    ['max_tokens', base, 'error'],
    ['max_turn_requests', base, 'error'],
    ['refusal', base, 'error'],
    ['something_new', base, 'error'],
  ])('%s %j → %s', (reason, o, status) => {
    expect(classifyStop(reason, o).status).toBe(status);
  });
});

describe('session/load waits for the minute to turn (docs/reference/acp.md#session-load)', () => {
  it('reads the minute from the session file name (UTC) and computes the wait', async () => {
    const id = '22511a66-2082-4f94-8995-e1f1ec0bd0bb';
    const minute = Date.UTC(2026, 10, 30, 23, 59);
    expect(minuteOfSessionFile(`session-2026-11-30T23-59-${id.slice(0, 8)}.jsonl`, id)).toBe(minute);
    expect(minuteOfSessionFile('session-2026-11-30T23-59-deadbeef.jsonl', id)).toBeUndefined();
    expect(msUntilMinuteTurned(minute, minute + 10_000)).toBe(51_000);
    expect(msUntilMinuteTurned(minute, minute + 90_000)).toBe(0);
    const home = mkdtempSync(join(tmpdir(), 'acp-home-'));
    try {
      mkdirSync(join(home, '.gemini/tmp/proj/chats'), { recursive: true });
      writeFileSync(
        join(home, `.gemini/tmp/proj/chats/session-2026-11-30T23-59-${id.slice(0, 8)}.jsonl`),
        '',
      );
      expect(await sessionStartMinute(id, home)).toBe(minute);
      expect(await sessionStartMinute('ffffffff-0000', home)).toBeUndefined();
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});

describe('tool names: policies mean the same on agy and Gemini CLI', () => {
  const call = (name: string, args: Record<string, unknown> = {}) =>
    createHookToolCall({ id: 'x', name, args });
  it('a policy written with either name acts on both', async () => {
    expect((await evaluate([policy.deny('write_to_file')], call('write_file'))).decision).toBe('deny');
    expect((await evaluate([policy.deny('write_file')], call('write_to_file'))).decision).toBe('deny');
    expect((await evaluate([policy.deny('run_command')], call('run_shell_command'))).decision).toBe('deny');
    expect((await evaluate([policy.deny('view_file')], call('read_file'))).decision).toBe('deny');
    expect((await evaluate([policy.deny('write_to_file')], call('read_file'))).decision).toBe('approve');
  });
  it('confirmRunCommand denies run_shell_command; safeDefaults approves read_file; workspaceOnly checks file_path', async () => {
    expect((await evaluate([policy.confirmRunCommand()], call('run_shell_command'))).decision).toBe('deny');
    expect((await evaluate([policy.confirmRunCommand()], call('write_file'))).decision).toBe('approve');
    const ask = safeDefaults(() => true);
    expect((await evaluate(ask, call('read_file'))).decision).toBe('approve');
    expect((await evaluate(ask, call('write_file'))).decision).toBe('ask_user');
    const ws = mkdtempSync(join(tmpdir(), 'acp-ws-'));
    try {
      const only = [...workspaceOnly([ws]), policy.allowAll()];
      expect((await evaluate(only, call('write_file', { file_path: '/etc/passwd' }))).decision).toBe('deny');
      expect((await evaluate(only, call('write_file', { file_path: join(ws, 'a') }))).decision).toBe(
        'approve',
      );
    } finally {
      rmSync(ws, { recursive: true, force: true });
    }
  });
});

describe('config on the ACP backend', () => {
  const acp = { kind: 'acp' as const, preset: 'gemini-cli' as const };
  const fieldOf = (fn: () => unknown): string | undefined => {
    try {
      fn();
    } catch (e) {
      return e instanceof ConfigError ? `${e.field}: ${e.message}` : String(e);
    }
    return undefined;
  };
  it('rejects agy-only fields, naming the field and the backend', () => {
    for (const [field, value] of [
      ['agyPath', '/x'],
      ['effort', 'low'],
      ['effort', 'xhigh'],
      ['mode', 'plan'],
      ['sandbox', true],
      ['responseSchema', { type: 'object' }],
      ['extraArgs', ['--x']],
      ['agyHooks', []],
      ['dangerouslySkipPermissions', true],
      ['notes', 'n'],
    ] as const) {
      const msg = fieldOf(() => new Agent({ backend: acp, [field]: value }));
      expect(msg).toMatch(new RegExp(`^${field}: .*ACP backend`));
    }
  });
  it('needs a preset or a command; rejects unknown keys and stdio cwd; agy stays the default', () => {
    expect(fieldOf(() => new Agent({ backend: { kind: 'acp' } }))).toMatch(/^backend: .*preset or a command/);
    expect(fieldOf(() => new Agent({ backend: { kind: 'acp', comand: 'x' } as never }))).toMatch(/^backend/);
    expect(fieldOf(() => new Agent({ backend: { kind: 'acp', preset: 'nope' } as never }))).toMatch(
      /^backend\.preset/,
    );
    expect(
      fieldOf(() => new Agent({ backend: acp, mcpServers: { s: { command: 'x', cwd: '/tmp' } } })),
    ).toMatch(/^mcpServers\.s\.cwd: .*ACP/);
    expect(
      fieldOf(() => new Agent({ backend: acp, model: 'm', tools: [], isolation: 'shadow-home' })),
    ).toBeUndefined();
    expect(fieldOf(() => new Agent({ backend: { kind: 'agy' }, effort: 'low' }))).toBeUndefined();
  });
  it('presets supply the command line; command and args override it', () => {
    expect(acpCommandLine({ kind: 'acp', preset: 'gemini-cli' })).toEqual({
      command: 'gemini',
      args: ['--acp'],
    });
    expect(acpCommandLine({ kind: 'acp', preset: 'agy-acp' })).toEqual({
      command: 'agy_acp_server',
      args: [],
    });
    expect(acpCommandLine({ kind: 'acp', preset: 'gemini-cli', command: '/opt/g' })).toEqual({
      command: '/opt/g',
      args: ['--acp'],
    });
  });
});
