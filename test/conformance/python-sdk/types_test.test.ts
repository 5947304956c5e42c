/**
 * Google's `types_test.py` on agy-sdk's public API: prompt media and `fromFile`, `BuiltinTools`,
 * `CapabilitiesConfig`, MCP server configs, errors and the streamed `ChatResponse`.
 *
 * Source: github.com/lovicho/antigravity-sdk-python, google/antigravity/types_test.py at commit
 * 63b1ebe404f731da84c20ec126851498492df279 (`google-antigravity` 0.1.14). Differences by design:
 * docs/python-parity.md ("Where behaviour differs").
 *
 * Not applicable (103), not ported. Most test pydantic models whose agy-sdk counterpart is a plain TypeScript
 * interface with no runtime behaviour (construction defaults, `extra` fields, mutability, required fields,
 * `model_dump`, union parsing):
 * - ToolCallTest (10), ToolResultTest (9), StepTest (5), HookResultTest (4), QuestionResponseTest (4),
 *   QuestionHookResultTest (3), AskQuestionModelsTest (3), ModelTargetTest (3: a model is a string here),
 *   SystemInstructionsTest (7), AgentBehaviorTest (1: no `agent_behavior`), ToolExecutionErrorTest (2: no such
 *   error; a failed tool is an error result), RetryConfigTest (3: agy retries itself, nothing to configure),
 *   SubagentConfigTest (4: agy's subagent definitions are files, `AgentConfig.subagents`),
 *   SubagentCapabilitiesTest (8: no per-subagent capabilities).
 * - AntigravityValidationErrorTest's pydantic conversions (5: test_from_pydantic, test_with_errors_list,
 *   test_step_pydantic, test_step_with_tool_calls, test_tool_call_pydantic); ThinkingLevelTest.test_string_comparison
 *   (1: a `str` enum's equality with its value; a ThinkingLevel is the string itself).
 * - CapabilitiesConfigTest's Python-only fields (17): agent_behavior (1), the ask_question warnings (2), subagent
 *   depth and allow-lists (12), run_command_config (2).
 * - McpServerConfigTest.test_union_deserialization (1): a pydantic `TypeAdapter`. UsageMetadataTest (4): the `+`
 *   operator on `UsageMetadata` (sums are the conversation's: `usageByModel`, `totalUsage`).
 *   BudgetEnforcementTypesTest (3): `BudgetConfig` validation and `StopReason`, whose agy-sdk forms are tested in
 *   test/conversation/budget.test.ts.
 * - ChatResponseStreamTest (4): test_explicit_lock_contention_double_check (the `_pull_lock` of Python's single
 *   upstream iterator; every cursor here reads a replay buffer), test_thought_chunk_validation and
 *   test_text_chunk_validation (pydantic fields of `Thought`/`Text`), test_stream_cancellation_sets_is_done
 *   (`asyncio.CancelledError` raised inside the stream).
 * - ContentFromFileResolverTest.test_permission_error_wrapping and test_os_error_wrapping (2): they mock
 *   `pathlib.Path.read_bytes`; the unreadable-file path is ported as test_directory_path_raises_error.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  Agent,
  Audio,
  BuiltinTools,
  ConfigError,
  ContentError,
  Document,
  fromFile,
  Image,
  policy,
  StartError,
  type StreamChunk,
  TurnError,
  Video,
} from '../../../src/index.js';
import { InMemoryConnection, type ScriptedStep, type ScriptedTurn } from '../../../src/testing/index.js';
import { quietLogger } from './kit.js';

const bytes = (s: string) => new TextEncoder().encode(s);

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'agy-sdk-conformance-types-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});
async function file(name: string, content = 'fake_bytes'): Promise<string> {
  const p = path.join(dir, name);
  await writeFile(p, content);
  return p;
}

describe('ImageTest (types_test.py)', () => {
  it('ImageTest.test_basic_construction (types_test.py)', () => {
    const img = new Image({ data: bytes('png_data'), mimeType: 'image/png', description: 'diagram' });
    expect([img.data, img.mimeType, img.description]).toEqual([bytes('png_data'), 'image/png', 'diagram']);
  });

  it('ImageTest.test_unsupported_mime_type_raises (types_test.py)', () => {
    expect(() => new Image({ data: bytes('gif_bytes'), mimeType: 'image/gif' })).toThrow(ContentError);
  });

  it('ImageTest.test_from_file_success (types_test.py)', async () => {
    const img = await fromFile(await file('photo.png', 'png_file_content'), { description: 'profile photo' });
    expect(img).toBeInstanceOf(Image);
    expect([Buffer.from(img.data).toString(), img.mimeType, img.description]).toEqual([
      'png_file_content',
      'image/png',
      'profile photo',
    ]);
  });

  it('ImageTest.test_from_file_inference_failure_raises (types_test.py)', async () => {
    await expect(fromFile(await file('photo.unknown', 'some_bytes'))).rejects.toThrow(
      /cannot tell the MIME type/,
    );
  });
});

describe('DocumentTest (types_test.py)', () => {
  it('DocumentTest.test_basic_construction (types_test.py)', () => {
    const doc = new Document({ data: bytes('pdf_data'), mimeType: 'application/pdf', description: 'report' });
    expect([doc.mimeType, doc.description]).toEqual(['application/pdf', 'report']);
  });

  it('DocumentTest.test_supported_mime_types (types_test.py)', () => {
    for (const mimeType of [
      'application/pdf',
      'application/json',
      'text/css',
      'text/csv',
      'text/html',
      'text/javascript',
      'text/plain',
      'text/rtf',
      'text/xml',
    ]) {
      expect(new Document({ data: bytes('sample_data'), mimeType }).mimeType).toBe(mimeType);
    }
  });

  it('DocumentTest.test_unsupported_mime_type_raises (types_test.py)', () => {
    expect(() => new Document({ data: bytes('image_bytes'), mimeType: 'image/png' })).toThrow(ContentError);
  });

  it('DocumentTest.test_from_file_success (types_test.py)', async () => {
    const doc = await fromFile(await file('report.pdf', 'pdf_file_content'), {
      description: 'monthly report',
    });
    expect(doc).toBeInstanceOf(Document);
    expect([doc.mimeType, doc.description]).toEqual(['application/pdf', 'monthly report']);
  });
});

describe('AudioTest (types_test.py)', () => {
  it('AudioTest.test_basic_construction (types_test.py)', () => {
    expect(new Audio({ data: bytes('mp3_data'), mimeType: 'audio/mp3' }).mimeType).toBe('audio/mp3');
  });

  it('AudioTest.test_supported_mime_types (types_test.py)', () => {
    for (const mimeType of [
      'audio/wav',
      'audio/x-wav',
      'audio/wave',
      'audio/vnd.wave',
      'audio/mp3',
      'audio/mp4',
      'audio/webm',
      'audio/aac',
      'audio/ogg',
      'audio/flac',
      'audio/opus',
      'audio/mpeg',
      'audio/m4a',
      'audio/l16',
    ]) {
      expect(new Audio({ data: bytes('sample_data'), mimeType }).mimeType, mimeType).toBe(mimeType);
    }
  });

  it('AudioTest.test_unsupported_mime_type_raises (types_test.py)', () => {
    expect(() => new Audio({ data: bytes('wav_bytes'), mimeType: 'audio/unsupported-wav' })).toThrow(
      ContentError,
    );
  });
});

describe('VideoTest (types_test.py)', () => {
  it('VideoTest.test_basic_construction (types_test.py)', () => {
    expect(new Video({ data: bytes('mp4_data'), mimeType: 'video/mp4' }).mimeType).toBe('video/mp4');
  });

  it('VideoTest.test_unsupported_mime_type_raises (types_test.py)', () => {
    expect(() => new Video({ data: bytes('mov_bytes'), mimeType: 'video/unsupported-mov' })).toThrow(
      ContentError,
    );
  });
});

describe('ContentFromFileResolverTest (types_test.py)', () => {
  it('ContentFromFileResolverTest.test_resolves_from_file (types_test.py)', async () => {
    const cases = [
      ['diagram.png', Image, 'image/png'],
      ['report.pdf', Document, 'application/pdf'],
      ['clip.mp3', Audio, 'audio/mpeg'],
      ['movie.mp4', Video, 'video/mp4'],
    ] as const;
    for (const [name, kind, mimeType] of cases) {
      const part = await fromFile(await file(name), { description: 'test asset' });
      expect(part, name).toBeInstanceOf(kind);
      expect([part.mimeType, part.description], name).toEqual([mimeType, 'test asset']);
    }
  });

  it('ContentFromFileResolverTest.test_non_existent_path_raises_error (types_test.py)', async () => {
    await expect(fromFile(path.join(dir, 'non_existent_file_xyz.png'))).rejects.toThrow(ContentError);
  });

  it('ContentFromFileResolverTest.test_directory_path_raises_error (types_test.py)', async () => {
    const sub = path.join(dir, 'a-directory.png');
    await mkdir(sub);
    await expect(fromFile(sub)).rejects.toThrow(ContentError);
  });

  it('ContentFromFileResolverTest.test_inference_failure_raises_clear_value_error (types_test.py)', async () => {
    await expect(fromFile(await file('extensionless_data_blob'))).rejects.toThrow(
      /cannot tell the MIME type/,
    );
  });
});

describe('BuiltinToolsTest (types_test.py)', () => {
  /** Python's members, in its order: each is here, valued with agy's name for the tool. */
  const members = {
    LIST_DIR: 'list_dir',
    SEARCH_DIR: 'grep_search',
    FIND_FILE: 'find_by_name',
    VIEW_FILE: 'view_file',
    CREATE_FILE: 'write_to_file',
    EDIT_FILE: 'replace_file_content',
    RUN_COMMAND: 'run_command',
    ASK_QUESTION: 'ask_question',
    SEARCH_WEB: 'search_web',
    READ_URL_CONTENT: 'read_url_content',
    START_SUBAGENT: 'invoke_subagent',
    GENERATE_IMAGE: 'generate_image',
    FINISH: 'finish',
  } as const;
  // Differs by design: agy-sdk's BuiltinTools also names agy's own tools that Python's enum lacks (agy 1.3.1's
  // init.tools, docs/reference/stream-json.md#built-in-tools); none of them is read-only.
  const agyMembers = {
    SED_FILE: 'sed_file',
    DEFINE_SUBAGENT: 'define_subagent',
    MANAGE_TASK: 'manage_task',
    SCHEDULE: 'schedule',
    RUN_WORKFLOW: 'run_workflow',
  } as const;

  it('BuiltinToolsTest.test_enum_values (types_test.py)', () => {
    // Differs by design: the values are agy's tool names (Python's are its harness's: list_directory, …).
    for (const [member, value] of Object.entries(members))
      expect(BuiltinTools[member as keyof typeof members], member).toBe(value);
  });

  it('BuiltinToolsTest.test_read_only_covers_all_tools (types_test.py)', () => {
    const readOnly = new Set<string>(BuiltinTools.readOnly());
    const write = new Set<string>([
      BuiltinTools.CREATE_FILE,
      BuiltinTools.EDIT_FILE,
      BuiltinTools.RUN_COMMAND,
      BuiltinTools.ASK_QUESTION,
      BuiltinTools.START_SUBAGENT,
      BuiltinTools.GENERATE_IMAGE,
      BuiltinTools.SEARCH_WEB,
      ...Object.values(agyMembers),
    ]);
    expect(new Set([...readOnly, ...write])).toEqual(new Set(BuiltinTools.allTools()));
    expect([...readOnly].filter((t) => write.has(t))).toEqual([]);
  });

  it('BuiltinToolsTest.test_nondestructive_covers_all_tools (types_test.py)', () => {
    const nondestructive = new Set<string>(BuiltinTools.nondestructive());
    expect(new Set([...nondestructive, BuiltinTools.RUN_COMMAND])).toEqual(new Set(BuiltinTools.allTools()));
    expect(nondestructive.has(BuiltinTools.RUN_COMMAND)).toBe(false);
  });

  it('BuiltinToolsTest.test_all_tools_returns_every_member (types_test.py)', () => {
    expect(new Set(BuiltinTools.allTools())).toEqual(
      new Set([...Object.values(members), ...Object.values(agyMembers)]),
    );
    for (const [member, value] of Object.entries(agyMembers))
      expect(BuiltinTools[member as keyof typeof agyMembers], member).toBe(value);
  });

  it('BuiltinToolsTest.test_none_returns_empty_list (types_test.py)', () => {
    expect(BuiltinTools.none()).toEqual([]);
  });
});

describe('CapabilitiesConfigTest (types_test.py)', () => {
  const agentWith = (capabilities: object) =>
    new Agent({ connection: new InMemoryConnection().connect, logger: quietLogger, capabilities });

  it('CapabilitiesConfigTest.test_default_construction (types_test.py)', async () => {
    // No capabilities: every built-in tool is on, subagents included (nothing is denied by the SDK).
    const conn = new InMemoryConnection();
    await using agent = new Agent({
      connection: conn.connect,
      logger: quietLogger,
      policies: [policy.allowAll()],
    });
    await agent.start();
    for (const name of ['run_command', 'invoke_subagent', 'view_file'])
      expect((await conn.host!.gateToolCall({ id: name, name, args: {}, normalizedArgs: {} })).allow).toBe(
        true,
      );
  });

  it('CapabilitiesConfigTest.test_enabled_tools (types_test.py)', () => {
    expect(() => agentWith({ enabledTools: [BuiltinTools.VIEW_FILE] })).not.toThrow();
  });

  it('CapabilitiesConfigTest.test_disabled_tools (types_test.py)', () => {
    expect(() => agentWith({ disabledTools: [BuiltinTools.RUN_COMMAND] })).not.toThrow();
  });

  it('CapabilitiesConfigTest.test_mutually_exclusive_raises (types_test.py)', () => {
    expect(() =>
      agentWith({ enabledTools: [BuiltinTools.VIEW_FILE], disabledTools: [BuiltinTools.RUN_COMMAND] }),
    ).toThrow(ConfigError);
  });

  it('CapabilitiesConfigTest.test_compaction_threshold_explicit (types_test.py)', () => {
    // Differs by design: no backend has a compaction threshold to set, so it is refused, never ignored.
    expect(() => new Agent({ logger: quietLogger, capabilities: { compactionThreshold: 50_000 } })).toThrow(
      /compactionThreshold/,
    );
  });
});

describe('ThinkingLevelTest (types_test.py)', () => {
  it('ThinkingLevelTest.test_enum_values (types_test.py)', () => {
    for (const effort of ['minimal', 'low', 'medium', 'high'] as const)
      expect(() => new Agent({ connection: new InMemoryConnection().connect, effort })).not.toThrow();
    expect(
      () => new Agent({ connection: new InMemoryConnection().connect, effort: 'extreme' as never }),
    ).toThrow(ConfigError);
  });
});

describe('AntigravityValidationErrorTest (types_test.py)', () => {
  it('AntigravityValidationErrorTest.test_basic_construction (types_test.py)', () => {
    const error = new ConfigError('policies', 'must be an array');
    expect(error.field).toBe('policies');
    expect(error.message).toContain('must be an array');
  });

  it('AntigravityValidationErrorTest.test_is_exception (types_test.py)', () => {
    expect(new ConfigError('x', 'y')).toBeInstanceOf(Error);
  });
});

describe('AntigravityConnectionErrorTest (types_test.py)', () => {
  const noDiagnostics = { exitCode: null, signal: null, stderrTail: '' };

  it('AntigravityConnectionErrorTest.test_is_exception (types_test.py)', () => {
    expect(new StartError('agy did not start', noDiagnostics)).toBeInstanceOf(Error);
  });

  it('AntigravityConnectionErrorTest.test_message (types_test.py)', () => {
    expect(new StartError('agy did not start', noDiagnostics).message).toContain('agy did not start');
  });
});

describe('McpServerConfigTest (types_test.py)', () => {
  const agentWith = (mcpServers: Record<string, object>) =>
    new Agent({ logger: quietLogger, mcpServers: mcpServers as never, policies: [policy.allowAll()] });

  it('McpServerConfigTest.test_server_construction_success (types_test.py)', () => {
    expect(() =>
      agentWith({
        stdio_server: { command: 'node', args: ['index.js'], env: { FOO: 'bar' } },
        http_server: { url: 'http://localhost/http' },
      }),
    ).not.toThrow();
  });

  it('McpServerConfigTest.test_server_missing_name_raises (types_test.py)', () => {
    // A server's name is its key in `mcpServers`; an empty key is the missing name.
    expect(() => agentWith({ '': { command: 'node' } })).toThrow(ConfigError);
  });

  it('McpServerConfigTest.test_server_construction_with_filtering (types_test.py)', () => {
    expect(() =>
      agentWith({
        a: { command: 'node', enabledTools: ['tool1'] },
        b: { command: 'node', disabledTools: ['tool2'] },
        c: { url: 'http://localhost/http', enabledTools: ['tool1'] },
        d: { url: 'http://localhost/http', disabledTools: ['tool2'] },
      }),
    ).not.toThrow();
  });

  it('McpServerConfigTest.test_server_exclusive_filtering_raises (types_test.py)', () => {
    // Differs by design: both lists may be given (a tool must be in enabledTools and not in disabledTools), where
    // Python refuses the pair.
    for (const both of [
      { command: 'node', enabledTools: ['tool1'], disabledTools: ['tool2'] },
      { url: 'http://localhost/http', enabledTools: ['tool1'], disabledTools: ['tool1'] },
    ])
      expect(() => agentWith({ server: both })).not.toThrow();
  });

  it('McpServerConfigTest.test_server_valid_names (types_test.py)', () => {
    for (const name of ['validName', 'valid-name', 'valid_name', 'valid_name-123'])
      expect(() => agentWith({ [name]: { command: 'node' } }), name).not.toThrow();
  });

  it('McpServerConfigTest.test_server_invalid_names_raise (types_test.py)', () => {
    for (const name of ['invalid name', 'invalid.name', 'invalid/name', 'invalid@name', 'invalidName!'])
      expect(() => agentWith({ [name]: { command: 'node' } }), name).toThrow(ConfigError);
  });
});

describe('ChatResponseStreamTest (types_test.py)', () => {
  const text = (textDelta: string, stepIndex: number): ScriptedStep => ({
    type: 'agent_response',
    textDelta,
    stepIndex,
  });
  const thought = (thoughtDelta: string, stepIndex: number): ScriptedStep => ({
    type: 'agent_response',
    thoughtDelta,
    stepIndex,
  });
  const toolCall = (id: string, name: string, stepIndex: number): ScriptedStep => ({
    type: 'tool',
    stepIndex,
    tool: { id, name, args: {}, stepIndex, state: 'DONE' },
  });

  /** A response whose turn streams `steps`, on an agent closed after the test. */
  async function respond(turn: ScriptedTurn) {
    const conn = new InMemoryConnection({ turns: [turn] });
    const agent = new Agent({ connection: conn.connect, logger: quietLogger });
    const response = await agent.chat('q');
    return { response, agent };
  }
  const all = async <T>(it: AsyncIterable<T>) => {
    const out: T[] = [];
    for await (const x of it) out.push(x);
    return out;
  };

  it('ChatResponseStreamTest.test_text_concatenation (types_test.py)', async () => {
    const { response, agent } = await respond({
      steps: [text('Hello ', 1), thought('internal reasoning...', 1), text('world!', 2)],
    });
    await using _ = agent;
    expect(await response.text()).toBe('Hello world!');
  });

  it('ChatResponseStreamTest.test_thoughts_sugared_stream (types_test.py)', async () => {
    const { response, agent } = await respond({
      steps: [thought('Let me think...', 1), text('Standard response text.', 2)],
    });
    await using _ = agent;
    expect(await all(response.thoughts())).toEqual(['Let me think...']);
  });

  it('ChatResponseStreamTest.test_tool_calls_sugared_stream (types_test.py)', async () => {
    const { response, agent } = await respond({
      steps: [text('Invoking tool...', 1), toolCall('call_1', 'get_weather', 2)],
    });
    await using _ = agent;
    expect((await all(response.toolCalls())).map((c) => c.name)).toEqual(['get_weather']);
  });

  it('ChatResponseStreamTest.test_lazy_caching_and_re_iteration (types_test.py)', async () => {
    let pulls = 0;
    const conn = new InMemoryConnection({
      turns: [
        () => {
          pulls++;
          return { steps: [text('A', 1), text('B', 2)] };
        },
      ],
    });
    await using agent = new Agent({ connection: conn.connect, logger: quietLogger });
    const response = await agent.chat('q');
    expect(await all(response)).toEqual(['A', 'B']);
    expect(await all(response)).toEqual(['A', 'B']);
    expect(pulls).toBe(1);
  });

  it('ChatResponseStreamTest.test_sequential_thoughts_then_text (types_test.py)', async () => {
    const { response, agent } = await respond({
      steps: [thought('hmm...', 1), text('Hello ', 2), text('world!', 3)],
    });
    await using _ = agent;
    expect(await all(response.thoughts())).toEqual(['hmm...']);
    expect(await all(response)).toEqual(['Hello ', 'world!']);
  });

  it('ChatResponseStreamTest.test_sequential_text_then_thoughts (types_test.py)', async () => {
    const { response, agent } = await respond({ steps: [thought('thinking', 1), text('answer', 2)] });
    await using _ = agent;
    expect(await all(response)).toEqual(['answer']);
    expect(await all(response.thoughts())).toEqual(['thinking']);
  });

  it('ChatResponseStreamTest.test_sequential_tool_calls_then_text (types_test.py)', async () => {
    const { response, agent } = await respond({
      steps: [text('Let me search.', 1), toolCall('c1', 'search', 2), text('Done.', 3)],
    });
    await using _ = agent;
    expect((await all(response.toolCalls())).map((c) => c.name)).toEqual(['search']);
    expect(await all(response)).toEqual(['Let me search.', 'Done.']);
  });

  it('ChatResponseStreamTest.test_all_three_sequential (types_test.py)', async () => {
    const { response, agent } = await respond({
      steps: [thought('plan', 1), text("I'll search.", 2), toolCall('c1', 'search', 3), text('Found it.', 4)],
    });
    await using _ = agent;
    expect(await all(response.thoughts())).toEqual(['plan']);
    expect(await all(response.toolCalls())).toHaveLength(1);
    expect(await all(response)).toEqual(["I'll search.", 'Found it.']);
  });

  it('ChatResponseStreamTest.test_two_chunks_cursors_independent (types_test.py)', async () => {
    const { response, agent } = await respond({ steps: [thought('a', 1), text('b', 2)] });
    await using _ = agent;
    const first = await all(response.chunks());
    expect(await all(response.chunks())).toEqual(first);
    expect(first).toHaveLength(2);
  });

  it('ChatResponseStreamTest.test_resolve_then_text_then_aiter (types_test.py)', async () => {
    const { response, agent } = await respond({
      steps: [thought('think', 1), text('hello ', 2), text('world', 3)],
    });
    await using _ = agent;
    const result = await response.result();
    expect(result.status).toBe('success');
    expect(await all(response.steps())).toHaveLength(3);
    expect(await response.text()).toBe('hello world');
    expect(await all(response)).toEqual(['hello ', 'world']);
  });

  it('ChatResponseStreamTest.test_interleaved_chunk_types (types_test.py)', async () => {
    const { response, agent } = await respond({
      steps: [thought('A', 1), text('B', 2), thought('C', 3), text('D', 4), toolCall('c1', 'fn', 5)],
    });
    await using _ = agent;
    // Differs by design: a tool call is not a chunk (`toolCalls()` has them): four chunks, where Python's five
    // count it.
    expect((await all(response.chunks())).map((c: StreamChunk) => c.text)).toEqual(['A', 'B', 'C', 'D']);
    expect(await all(response.thoughts())).toEqual(['A', 'C']);
    expect(await all(response)).toEqual(['B', 'D']);
    expect(await all(response.toolCalls())).toHaveLength(1);
  });

  it('ChatResponseStreamTest.test_error_propagation_to_all_cursors (types_test.py)', async () => {
    const { response, agent } = await respond({
      steps: [text('ok', 1)],
      result: { status: 'error', errorMessage: 'network failure' },
    });
    await using _ = agent;
    // Differs by design: cursors end with the turn and `text()` rejects with the TurnError; a failure never
    // throws out of a stream a UI is rendering. Every cursor replays the same chunks.
    expect((await all(response.chunks())).map((c) => c.text)).toEqual(['ok']);
    expect((await all(response.chunks())).map((c) => c.text)).toEqual(['ok']);
    await expect(response.text()).rejects.toThrow(TurnError);
    await expect(response.text()).rejects.toThrow(/network failure/);
  });

  it('ChatResponseStreamTest.test_concurrent_cursors_via_gather (types_test.py)', async () => {
    const { response, agent } = await respond({ steps: [thought('t', 1), text('a', 2), text('b', 3)] });
    await using _ = agent;
    const [thoughts, texts] = await Promise.all([all(response.thoughts()), all(response)]);
    expect(thoughts).toEqual(['t']);
    expect(texts).toEqual(['a', 'b']);
  });

  it('ChatResponseStreamTest.test_empty_stream_all_iterators (types_test.py)', async () => {
    const { response, agent } = await respond({ steps: [] });
    await using _ = agent;
    expect(await all(response.chunks())).toEqual([]);
    expect(await all(response.thoughts())).toEqual([]);
    expect(await all(response)).toEqual([]);
    expect(await all(response.toolCalls())).toEqual([]);
    expect(await response.text()).toBe('');
  });

  it('ChatResponseStreamTest.test_structured_output_lazy_accessor (types_test.py)', async () => {
    const conn = new InMemoryConnection({ turns: [{ result: { structuredOutput: { result: 'data' } } }] });
    await using agent = new Agent({
      connection: conn.connect,
      logger: quietLogger,
      responseSchema: { type: 'object' },
    });
    expect(await (await agent.chat('q')).structuredOutput()).toEqual({ result: 'data' });
  });

  it('ChatResponseStreamTest.test_usage_metadata_lazy_accessor (types_test.py)', async () => {
    const usage = {
      inputTokens: 10,
      outputTokens: 20,
      thinkingTokens: 0,
      cacheReadTokens: 0,
      totalTokens: 30,
    };
    const { response, agent } = await respond({ steps: [text('finished', 1)], result: { usage } });
    await using _ = agent;
    expect(response.usage).toBeUndefined();
    await response.result();
    expect(response.usage).toMatchObject({ inputTokens: 10, outputTokens: 20, totalTokens: 30 });
  });

  it('ChatResponseStreamTest.test_cancel_delegates_to_conversation (types_test.py)', async () => {
    const { response, agent } = await respond({ steps: [text('hello', 1)], hang: true });
    await using _ = agent;
    expect(response.done).toBe(false);
    await response.cancel();
    expect((await response.result()).status).toBe('canceled');
  });

  it('ChatResponseStreamTest.test_cancel_completed_stream_is_noop (types_test.py)', async () => {
    const { response, agent } = await respond({ steps: [text('hello', 1)] });
    await using _ = agent;
    await response.result();
    expect(response.done).toBe(true);
    await response.cancel();
    expect((await response.result()).status).toBe('success');
  });

  it('ChatResponseStreamTest.test_empty_stream_text (types_test.py)', async () => {
    const { response, agent } = await respond({});
    await using _ = agent;
    expect(await response.text()).toBe('');
  });
});
