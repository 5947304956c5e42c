/**
 * Answers `session/request_permission`: the call becomes a step, the host's policies and `askUser` decide within
 * `permissionTimeoutMs` (no answer, a throw or a cancelled prompt deny: fail closed), and the answer is always a
 * once-only option (`permissions.ts`). A request outside our running turn is denied: nobody asked for that call.
 */

import { within } from '../../internal/timing.js';
import type { Logger } from '../../logger.js';
import type { ToolInvocation } from '../../model/tool-call.js';
import type { AcpRequestPermissionRequest, AcpRequestPermissionResponse } from '../../protocol/acp.js';
import type { ConnectionHost, ToolCallDecision } from '../host.js';
import type { McpServerConfig } from '../mcp-server-config.js';
import { OWN_TOOL_SERVER } from '../tool-server/server-name.js';
import type { AcpTurn } from './acp-turn.js';
import { wire } from './normalize.js';
import { DEFAULT_ACP_PERMISSION_TIMEOUT_MS } from './options.js';
import { CANCELLED, chooseOption } from './permission-options.js';
import { errorMessage } from './rpc-errors.js';
import { hookCallOf } from './tool-hooks.js';

/** What the handler reads from the connection. */
export interface PermissionDeps {
  /** The host that decides. */
  readonly host: ConnectionHost;
  /** Where failures are logged. */
  readonly logger: Logger;
  /** How long the host may take (default {@link DEFAULT_ACP_PERMISSION_TIMEOUT_MS}). */
  readonly permissionTimeoutMs: number | undefined;
  /** The user's MCP servers, for their `disabledTools`. */
  readonly mcpServers: Record<string, McpServerConfig> | undefined;
  /** The running turn, when it belongs to `sessionId`. */
  turnOf(sessionId: string): AcpTurn | undefined;
  /** A sign of life from the agent (`undefined`: the watchdog restarts without a new last event). */
  activity(what: string | undefined): void;
}

/** The client's answer to the agent's permission requests. */
export class PermissionHandler {
  readonly #deps: PermissionDeps;

  constructor(deps: PermissionDeps) {
    this.#deps = deps;
  }

  /** The answer to one `session/request_permission`; `signal` aborts when the agent cancels the request. */
  async answer(
    params: AcpRequestPermissionRequest,
    signal: AbortSignal,
  ): Promise<AcpRequestPermissionResponse> {
    const { host } = this.#deps;
    this.#deps.activity('session/request_permission');
    const turn = this.#deps.turnOf(params.sessionId);
    const tc = params.toolCall;
    if (!turn) {
      // No turn of ours is running: nobody asked for this call; it may not run.
      return chooseOption(params.options, false).response;
    }
    const step = turn.steps.requested(tc.toolCallId, tc, wire(params));
    turn.emit(step);
    const call = step.tool!;
    const hookCall = hookCallOf(call);
    const own = call.mcpServer === OWN_TOOL_SERVER;
    const key = {};
    host.toolCallRequested(key, hookCall);
    let verdict = await this.#decide(hookCall, own, signal);
    if (verdict.allow && verdict.args !== undefined && !own)
      verdict = {
        allow: false,
        reason: 'modified arguments cannot be given back to an ACP agent; the call was denied',
        deniedBy: { kind: 'sdk' },
      };
    if (verdict.allow && call.mcpServer !== undefined) {
      const disabled = this.#deps.mcpServers?.[call.mcpServer]?.disabledTools;
      if (disabled?.includes(call.name))
        verdict = {
          allow: false,
          reason: `tool '${call.name}' is in disabledTools of MCP server '${call.mcpServer}'`,
          deniedBy: { kind: 'config', field: `mcpServers.${call.mcpServer}.disabledTools` },
        };
    }
    const answer = chooseOption(params.options, verdict.allow);
    const acted: ToolCallDecision = answer.allowed
      ? verdict
      : verdict.allow
        ? // The agent offered no way to allow only this call: the SDK refuses a standing approval.
          { allow: false, reason: 'the agent offered no once-only approval', deniedBy: { kind: 'sdk' } }
        : verdict;
    host.toolCallAnswered(key, hookCall, acted);
    if (!acted.allow) {
      turn.denials++;
      const denied = turn.steps.denied(tc.toolCallId, acted.reason, wire(params));
      if (denied) turn.emit(denied);
    }
    this.#deps.activity(undefined);
    return signal.aborted ? CANCELLED : answer.response;
  }

  /** The host's verdict, bounded: no answer in `permissionTimeoutMs` (or a throw) denies (fail closed). */
  async #decide(call: ToolInvocation, own: boolean, signal: AbortSignal): Promise<ToolCallDecision> {
    const limit = this.#deps.permissionTimeoutMs ?? DEFAULT_ACP_PERMISSION_TIMEOUT_MS;
    const aborted = new Promise<ToolCallDecision>((resolve) => {
      if (signal.aborted) resolve({ allow: false, reason: 'the prompt was cancelled' });
      signal.addEventListener('abort', () => resolve({ allow: false, reason: 'the prompt was cancelled' }), {
        once: true,
      });
    });
    try {
      const answered = await within(
        Promise.race([this.#deps.host.gateToolCall(call, own ? { ownTool: 'asked' } : {}), aborted]),
        limit,
      );
      return answered?.value ?? { allow: false, reason: `no decision within ${limit} ms (fail closed)` };
    } catch (err) {
      this.#deps.logger.error('the tool-call decision threw; the call is denied', err);
      return { allow: false, reason: `the decision failed: ${errorMessage(err)}` };
    }
  }
}
