/**
 * `enforce`: turns a policy list into a `preToolCall` hook. The list is validated up front, so a
 * misconfiguration fails at startup instead of silently letting calls through.
 */

import { hooks } from '../hooks/factories.js';
import type { PreToolCallHook } from '../hooks/kinds.js';
import type { PreToolCallDecision } from '../hooks/types.js';
import { consoleLogger, describeError, type Logger } from '../logger.js';
import { DEFAULT_ASK_USER_TIMEOUT_MS, isValidTimeout, runAskUser } from './ask-user/ask.js';
import { PolicyConfigError } from './errors.js';
import { evaluateSorted, flattenPolicies, policyLabel, sortPolicies } from './evaluate.js';
import type { McpServerRef, Policy, PolicyList } from './types.js';

/** Options of {@link enforce}. */
export interface EnforceOptions {
  /**
   * The configured MCP servers. Without it, `server/…` policies are refused (they could never be checked); with
   * a list, each must name one of them; an empty list is Python's "hub mode": the servers are configured where
   * agy runs, not here, so any server name is taken as given.
   */
  mcpServers?: ReadonlyArray<string | McpServerRef> | undefined;
  /** How long a human has to answer an `ask_user` policy before the call is denied (default 5 min). */
  askUserTimeoutMs?: number | undefined;
  /** Where decisions and failures are reported. */
  logger?: Logger | undefined;
  /** The hook's name (default `policy`). */
  name?: string | undefined;
}

const DECISIONS = new Set(['approve', 'deny', 'ask_user']);

/**
 * Throws a {@link PolicyConfigError} for the first policy that cannot be enforced safely. `mcpServers`: the
 * configured servers, an empty set for hub mode (any server), `undefined` when none were given (no `server/…`).
 */
export function validatePolicies(
  policies: readonly Policy[],
  mcpServers: ReadonlySet<string> | undefined,
): void {
  for (const policy of policies) {
    const label = typeof policy?.tool === 'string' ? policyLabel(policy) : String(policy?.name ?? '?');
    if (typeof policy !== 'object' || policy === null) throw new PolicyConfigError('Not a policy', label);
    if (typeof policy.tool !== 'string' || policy.tool === '') {
      throw new PolicyConfigError(`Policy '${label}' has no tool target`, label);
    }
    if (!DECISIONS.has(policy.decision)) {
      throw new PolicyConfigError(
        `Policy '${label}' has an unknown decision ${JSON.stringify(policy.decision)}`,
        label,
      );
    }
    if (policy.when !== undefined && typeof policy.when !== 'function') {
      throw new PolicyConfigError(`Policy '${label}': 'when' must be a function`, label);
    }
    if (policy.decision === 'ask_user' && typeof policy.askUser !== 'function') {
      throw new PolicyConfigError(
        `ask_user policy '${label}' has no handler; pass one: policy.askUser(tool, { handler })`,
        label,
      );
    }
    const { tool } = policy;
    if (tool === '*') continue;
    const slash = tool.indexOf('/');
    if (slash === -1) {
      if (tool.includes('*')) {
        throw new PolicyConfigError(
          `Policy '${label}' targets '${tool}': only '*' and 'server/*' are wildcards (it would never match)`,
          label,
        );
      }
      continue;
    }
    const server = tool.slice(0, slash);
    const name = tool.slice(slash + 1);
    if (server === '' || name === '' || name.includes('/') || (name.includes('*') && name !== '*')) {
      throw new PolicyConfigError(`Policy '${label}' has a malformed MCP target '${tool}'`, label);
    }
    if (mcpServers === undefined) {
      throw new PolicyConfigError(
        `Policy '${label}' targets MCP server '${server}', but no MCP servers were given; pass them in ` +
          `enforce(…, { mcpServers }) (an empty list: any server, hub mode)`,
        label,
      );
    }
    if (mcpServers.size > 0 && !mcpServers.has(server)) {
      const known = [...mcpServers].map((s) => `'${s}'`).join(', ');
      throw new PolicyConfigError(
        `Policy '${label}' targets MCP server '${server}', which is not configured (configured: ${known}); ` +
          `pass it in enforce(…, { mcpServers })`,
        label,
      );
    }
  }
}

/**
 * Returns a `preToolCall` hook that enforces `policies` (see `evaluate` for precedence). A deny carries a
 * reason naming the policy; `ask_user` policies ask their handler under `askUserTimeoutMs`, and anything but
 * a timely "yes" denies. Throws {@link PolicyConfigError} when the list is not enforceable.
 */
export function enforce(policies: PolicyList, options: EnforceOptions = {}): PreToolCallHook {
  const logger = options.logger ?? consoleLogger;
  const timeoutMs = options.askUserTimeoutMs ?? DEFAULT_ASK_USER_TIMEOUT_MS;
  if (!isValidTimeout(timeoutMs)) {
    throw new PolicyConfigError(
      `askUserTimeoutMs must be > 0 and <= 2^31-1 ms, or Infinity (got ${timeoutMs})`,
    );
  }
  if (!Array.isArray(policies)) throw new PolicyConfigError('enforce() expects an array of policies');
  const servers =
    options.mcpServers === undefined
      ? undefined
      : new Set(options.mcpServers.map((s) => (typeof s === 'string' ? s : s.name)));
  const flat = flattenPolicies(policies);
  validatePolicies(flat, servers);
  const sorted = sortPolicies(flat);

  return hooks.preToolCall((call, operation) => decide(sorted, call, operation, { logger, timeoutMs }), {
    name: options.name ?? 'policy',
  });
}

/** What every decision of one enforced list shares. */
interface DecisionContext {
  logger: Logger;
  /** How long an `ask_user` handler has to answer. */
  timeoutMs: number;
}

/** The call a `preToolCall` hook decides on. */
type PolicyCall = Parameters<PreToolCallHook['run']>[0];
/** The hook's context: the operation the call belongs to. */
type PolicyOperation = Parameters<PreToolCallHook['run']>[1];

/** The first matching policy's answer for one call; no match allows, a failing condition denies. */
async function decide(
  sorted: readonly Policy[],
  call: PolicyCall,
  operation: PolicyOperation,
  ctx: DecisionContext,
): Promise<PreToolCallDecision> {
  const { logger } = ctx;
  const result = await evaluateSorted(sorted, call);
  const { policy } = result;
  if (policy === undefined) {
    logger.debug(`policy: no policy matched tool '${call.name}'; allowing`);
    return { allow: true };
  }
  const label = policyLabel(policy);
  if ('error' in result) {
    logger.error(
      `policy '${label}' threw while checking tool '${call.name}'; denying (fail closed)`,
      result.error,
    );
    return {
      allow: false,
      message: `Denied by policy '${label}': its condition failed (${describeError(result.error)}), and policies fail closed`,
      deniedBy: { kind: 'policy', name: label },
    };
  }
  switch (result.decision) {
    case 'approve':
      logger.debug(`policy '${label}' approved tool '${call.name}'`);
      return { allow: true };
    case 'deny':
      logger.info(`policy '${label}' denied tool '${call.name}'`);
      return {
        allow: false,
        message: `Denied by policy '${label}'${policy.message ? `: ${policy.message}` : ''}`,
        deniedBy: { kind: 'policy', name: label },
      };
    case 'ask_user':
      return askTheUser(policy, label, call, operation, ctx);
  }
}

/** An `ask_user` policy's answer: its handler's timely "yes" allows; anything else denies, saying whose "no". */
async function askTheUser(
  policy: Policy,
  label: string,
  call: PolicyCall,
  operation: PolicyOperation,
  { logger, timeoutMs }: DecisionContext,
): Promise<PreToolCallDecision> {
  logger.debug(`policy '${label}' asks the user about tool '${call.name}'`);
  // validatePolicies guarantees the handler.
  const outcome = await runAskUser(policy.askUser!, call, {
    policy: label,
    timeoutMs,
    logger,
    operation,
    ...(policy.message === undefined ? {} : { reason: policy.message }),
  });
  if (outcome.allow) return { allow: true };
  // Only an answer is the person's; a timeout or a failed handler is the policy failing closed.
  if (outcome.status === 'answered') {
    // runAskUser's own phrase for a bare "no" says no more than this prefix; the person's words do.
    const said = outcome.message === `the user denied tool '${call.name}'` ? undefined : outcome.message;
    return {
      allow: false,
      message: `Denied by the user (asked by policy '${label}')${said ? `: ${said}` : ''}`,
      deniedBy: { kind: 'user', policy: label },
    };
  }
  return {
    allow: false,
    message: `Denied by policy '${label}': ${outcome.message ?? 'not approved'}`,
    deniedBy: { kind: 'policy', name: label },
  };
}
