/**
 * Policy builders: `allow`, `deny`, `askUser` for a tool name or an MCP server (one policy per listed tool,
 * or `server/*` when no tools are listed), plus `allowAll` / `denyAll`.
 */
import type { AskUserHandler } from './ask-user/types.js';
import { PolicyConfigError } from './errors.js';
import type { Decision, McpServerRef, Policy, PolicyPredicate } from './types.js';

/** Options of {@link allow}. */
export interface AllowOptions {
  /** Only approve when this holds. */
  when?: PolicyPredicate;
  /** Label for logs. */
  name?: string;
}

/** Options of {@link deny}. */
export interface DenyOptions {
  /** Only deny when this holds. */
  when?: PolicyPredicate;
  /** Added to the reason the model sees. */
  message?: string;
  /** Label for logs and the deny reason. */
  name?: string;
}

/** Options of {@link askUser}. */
export interface AskUserOptions {
  /** Who to ask. */
  handler: AskUserHandler;
  /** Only ask when this holds. */
  when?: PolicyPredicate;
  /** Shown to the human as the reason for asking. */
  message?: string;
  /** Label for logs and the deny reason. */
  name?: string;
}

const SERVER_NAME = /^[A-Za-z0-9_-]+$/;

interface Extra {
  when?: PolicyPredicate | undefined;
  name?: string | undefined;
  message?: string | undefined;
  askUser?: AskUserHandler | undefined;
}

function make(tool: string, decision: Decision, extra: Extra): Policy {
  const policy: Policy = { tool, decision };
  if (extra.when !== undefined) policy.when = extra.when;
  if (extra.askUser !== undefined) policy.askUser = extra.askUser;
  if (extra.name !== undefined) policy.name = extra.name;
  if (extra.message !== undefined) policy.message = extra.message;
  return policy;
}

function build(
  decision: Decision,
  target: string | McpServerRef,
  toolsOrOptions: readonly string[] | Extra | undefined,
  options: Extra | undefined,
): Policy | Policy[] {
  if (typeof target === 'string') {
    if (Array.isArray(toolsOrOptions)) {
      throw new PolicyConfigError(
        `A tool list is only accepted with an MCP server, not with '${target}'`,
        target,
      );
    }
    if (target === '') throw new PolicyConfigError('A policy needs a non-empty tool target');
    return make(target, decision, (toolsOrOptions as Extra | undefined) ?? {});
  }
  const server = typeof target === 'object' && target !== null ? target.name : undefined;
  if (typeof server !== 'string' || !SERVER_NAME.test(server)) {
    throw new PolicyConfigError(`Invalid MCP server name ${JSON.stringify(server)}: expected [A-Za-z0-9_-]+`);
  }
  const extra = options ?? {};
  if (toolsOrOptions === undefined) {
    return [make(`${server}/*`, decision, { ...extra, name: extra.name ?? `${decision}_${server}_all` })];
  }
  if (!Array.isArray(toolsOrOptions)) {
    throw new PolicyConfigError(
      `MCP tools for server '${server}' must be an array of names (e.g. ['${String(toolsOrOptions)}'])`,
    );
  }
  const tools = toolsOrOptions as readonly unknown[];
  if (tools.length === 0) {
    throw new PolicyConfigError(`Empty tool list for MCP server '${server}': omit it to target every tool`);
  }
  return tools.map((tool) => {
    if (typeof tool !== 'string' || tool === '' || tool.includes('/')) {
      throw new PolicyConfigError(`Invalid MCP tool name ${JSON.stringify(tool)} for server '${server}'`);
    }
    const name = extra.name ? `${extra.name}_${tool}` : `${decision}_${server}_${tool}`;
    return make(`${server}/${tool}`, decision, { ...extra, name });
  });
}

/** Approves calls to `tool` (a name, `*`, `server/tool` or `server/*`). */
export function allow(tool: string, options?: AllowOptions): Policy;
/** Approves the listed tools of an MCP server, or all of them (`server/*`) when `tools` is omitted. */
export function allow(server: McpServerRef, tools?: readonly string[], options?: AllowOptions): Policy[];
export function allow(
  target: string | McpServerRef,
  toolsOrOptions?: readonly string[] | AllowOptions,
  options?: AllowOptions,
): Policy | Policy[] {
  return build('approve', target, toolsOrOptions, options);
}

/** Denies calls to `tool` (a name, `*`, `server/tool` or `server/*`). */
export function deny(tool: string, options?: DenyOptions): Policy;
/** Denies the listed tools of an MCP server, or all of them (`server/*`) when `tools` is omitted. */
export function deny(server: McpServerRef, tools?: readonly string[], options?: DenyOptions): Policy[];
export function deny(
  target: string | McpServerRef,
  toolsOrOptions?: readonly string[] | DenyOptions,
  options?: DenyOptions,
): Policy | Policy[] {
  return build('deny', target, toolsOrOptions, options);
}

/** Asks a human before calls to `tool` run. */
export function askUser(tool: string, options: AskUserOptions): Policy;
/** Asks a human before the listed tools of an MCP server (or all of them) run. */
export function askUser(
  server: McpServerRef,
  tools: readonly string[] | undefined,
  options: AskUserOptions,
): Policy[];
export function askUser(
  target: string | McpServerRef,
  toolsOrOptions: readonly string[] | AskUserOptions | undefined,
  options?: AskUserOptions,
): Policy | Policy[] {
  const extra = (o: AskUserOptions | undefined): Extra =>
    o === undefined ? {} : { when: o.when, name: o.name, message: o.message, askUser: o.handler };
  if (typeof target === 'string') {
    if (Array.isArray(toolsOrOptions)) {
      throw new PolicyConfigError(
        `A tool list is only accepted with an MCP server, not with '${target}'`,
        target,
      );
    }
    return build('ask_user', target, extra(toolsOrOptions as AskUserOptions | undefined), undefined);
  }
  return build('ask_user', target, toolsOrOptions as readonly string[] | undefined, extra(options));
}

/** Approves every tool call (`allow('*')`). */
export function allowAll(): Policy {
  return allow('*', { name: 'allow_all' });
}

/** Denies every tool call (`deny('*')`); combine with specific `allow`s for deny-by-default. */
export function denyAll(): Policy {
  return deny('*', { name: 'deny_all' });
}
