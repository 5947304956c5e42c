/**
 * The gate a replay's MCP records pass before anything reaches a server: a replay may do no more than the live
 * session would allow. A cassette is untrusted (shared, attached to bug reports), so:
 *
 * - a `tools/call` is sent only when a recorded PreToolUse call for that exact call (agy's server name, the
 *   tool, the arguments as the hook saw them or as the recording's answer overwrote them) precedes it, and
 *   this session's PreToolUse hook commands, re-run on it one at a time as agy runs them (the first denial
 *   wins, `overwrite`s merge), allowed it. Those commands reach the SDK's relay, so the session's policies,
 *   `enabledTools`, `preToolCall` hooks and budgets decide. What is sent carries the arguments this session's
 *   hooks let through, as live agy would. Each verdict serves one call. The agent's own tools are, as live,
 *   gated again in-process on the listener (`host.gateToolCall`);
 * - a session with no PreToolUse hook for `call_mcp_tool` has nothing to decide, so none of its calls are sent;
 * - of the other messages only agy's start handshake is replayed (`initialize`, `notifications/initialized`,
 *   `tools/list`, `ping`: they run no tool); anything else (`resources/read`, `prompts/get`, responses, a batch
 *   holding anything but handshake messages) is refused;
 * - a server whose URL is not loopback is reached only when the replay allows it (`replay-remote.ts`), checked
 *   from the URL before any connection.
 *
 * Each refusal is one stderr line (`agy-sdk cassette: refused …`), so the SDK's `onStderr` and logs show it.
 */
import { isDeepStrictEqual } from 'node:util';
import type { HookRecord, McpRecord } from '../../cassette/format.js';
import { SDK_NAMESPACE } from '../../connection/tool-server/server-name.js';
import { decidePreToolUse } from '../simulator/hook-events.js';
import { runHook } from '../simulator/hook-runner.js';
import type { McpHttpSpec, McpServerSpec } from '../simulator/mcp-config.js';
import type { SimRuntime } from '../simulator/runtime.js';
import { CALL_MCP_TOOL } from '../simulator/tool-steps.js';
import { type RemoteServers, remoteRefusal } from './replay-remote.js';

/** The messages replayed without a tool gate: agy's start handshake, which runs no tool. */
export const HANDSHAKE_METHODS: ReadonlySet<string> = new Set([
  'initialize',
  'notifications/initialized',
  'tools/list',
  'ping',
]);

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** An HTTP server of this session. */
export type HttpServer = McpServerSpec & { transport: McpHttpSpec };

/** What to do with one recorded MCP POST. */
export type McpDecision = { send: { server: HttpServer; body: unknown } } | { refused: string };

/** This session's verdict on one recorded `call_mcp_tool`, waiting for the `tools/call` it announces. */
interface CallVerdict {
  /** agy's server name (`agy-sdk_tools`). */
  server: string;
  /** The tool. */
  tool: string;
  /** The arguments a matching record may carry: the hook's, and as the recording's answer overwrote them. */
  recorded: unknown[];
  /** The arguments this session's hooks let through (what is sent). */
  args: Obj;
  /** Why it may not run; `undefined` when it may. */
  refusal: string | undefined;
}

/** One replay's gate (one process start): holds the verdicts of the PreToolUse calls replayed so far. */
export class ReplayGate {
  readonly #runtime: SimRuntime;
  readonly #remote: RemoteServers;
  readonly #verdicts: CallVerdict[] = [];

  constructor(runtime: SimRuntime, remote: RemoteServers) {
    this.#runtime = runtime;
    this.#remote = remote;
  }

  /**
   * Re-runs this session's PreToolUse hook commands on a recorded PreToolUse call, as agy runs them before the
   * tool; an MCP call's verdict waits for its `tools/call` record.
   */
  async preToolUse(record: HookRecord, conversationId: string): Promise<void> {
    const request = isObj(record.request) ? record.request : {};
    const toolCall = isObj(request.toolCall) ? request.toolCall : {};
    const name = typeof toolCall.name === 'string' ? toolCall.name : undefined;
    const hooks = name === undefined ? [] : this.#runtime.hooksFor('PreToolUse', name);
    const original = isObj(toolCall.args) ? toolCall.args : {};
    let args = original;
    let refusal: string | undefined;
    let ask: string | undefined;
    for (const hook of hooks) {
      const input = { ...request, toolCall: { ...toolCall, args } };
      const run = await runHook(hook, input, {
        cwd: this.#runtime.hookCwd,
        conversationId,
        exec: this.#runtime.hookExec,
      });
      const decision = decidePreToolUse(run, this.#runtime.preToolUseAnswers);
      if (decision.verdict === 'deny') {
        refusal = `this session's PreToolUse hooks denied it: ${decision.reason}`;
        break;
      }
      if (decision.overwrite !== undefined) args = { ...args, ...decision.overwrite };
      if (decision.verdict === 'ask') ask ??= decision.reason;
    }
    // A malformed call_mcp_tool names no call, so no record can match it.
    if (name !== CALL_MCP_TOOL || typeof args.ServerName !== 'string' || typeof args.ToolName !== 'string')
      return;
    if (hooks.length === 0)
      refusal = `no PreToolUse hook of this session matches ${CALL_MCP_TOOL}, so nothing decides on it`;
    else if (refusal === undefined && ask !== undefined && !this.#runtime.asksProceed)
      refusal = `this session's PreToolUse hooks asked for permission (${ask || 'no reason'}), which a replay cannot give`;
    const answer = isObj(record.answer) && isObj(record.answer.overwrite) ? record.answer.overwrite : {};
    this.#verdicts.push({
      server: args.ServerName,
      tool: args.ToolName,
      recorded: [original.Arguments ?? {}, { ...original, ...answer }.Arguments ?? {}],
      args: isObj(args.Arguments) ? args.Arguments : {},
      refusal,
    });
  }

  /** What to do with a recorded MCP POST: the server and body to send, or why it is refused. */
  decide(record: McpRecord): McpDecision {
    const server = this.#server(record.server);
    if (typeof server === 'string') return { refused: server };
    // The names the user may allow it by: agy's, its config key, and its `mcpServers` key (agy's name without the
    // SDK plugin's prefix, as under shadow-home isolation, where the key carries it too). Never the record's.
    const prefix = `${SDK_NAMESPACE}_`;
    const names = [server.name, server.key];
    if (server.name.startsWith(prefix)) names.push(server.name.slice(prefix.length));
    const remote = remoteRefusal(server.transport.url, names, this.#remote);
    if (remote !== undefined) return { refused: remote };
    const body = record.request;
    if (Array.isArray(body)) {
      const handshake = body.every((m) => isObj(m) && HANDSHAKE_METHODS.has(String(m.method)));
      return handshake
        ? { send: { server, body } }
        : { refused: 'a batch is replayed only when it holds handshake messages alone' };
    }
    if (!isObj(body) || typeof body.method !== 'string')
      return { refused: 'it is not a JSON-RPC request or notification' };
    if (HANDSHAKE_METHODS.has(body.method)) return { send: { server, body } };
    if (body.method !== 'tools/call')
      return {
        refused: `${body.method} is not replayed (only the handshake: ${[...HANDSHAKE_METHODS].join(', ')}; and gated tools/call)`,
      };
    return this.#toolCall(server, body);
  }

  #toolCall(server: HttpServer, body: Obj): McpDecision {
    const params = isObj(body.params) ? body.params : {};
    if (typeof params.name !== 'string') return { refused: 'its tools/call names no tool' };
    const tool = params.name;
    const args = params.arguments ?? {};
    const index = this.#verdicts.findIndex(
      (v) =>
        v.server === server.name &&
        v.tool === tool &&
        (isDeepStrictEqual(v.args, args) || v.recorded.some((r) => isDeepStrictEqual(r, args))),
    );
    if (index === -1)
      return {
        refused: `no recorded PreToolUse call for ${server.name} ${tool} with these arguments comes before it`,
      };
    const [verdict] = this.#verdicts.splice(index, 1);
    if (verdict!.refusal !== undefined) return { refused: verdict!.refusal };
    return { send: { server, body: { ...body, params: { ...params, arguments: verdict!.args } } } };
  }

  /**
   * The HTTP server a record names. A record names the listener's route (`tools`), which agy knows as the SDK
   * plugin's `agy-sdk_tools`; a hand-written one may use agy's name itself. (agy's names are unique: discovery
   * drops a second server of one name.)
   */
  #server(name: string): HttpServer | string {
    const servers = this.#runtime.config.mcpServers;
    const spec =
      servers.find((s) => s.name === `${SDK_NAMESPACE}_${name}`) ?? servers.find((s) => s.name === name);
    if (spec === undefined) return `no MCP server named ${JSON.stringify(name)} in this session`;
    if (spec.transport.kind !== 'http') return `${spec.name} is not an HTTP MCP server in this session`;
    return spec as HttpServer;
  }
}
