/** Types of the declarative tool-call policy system. */

import type { MaybePromise, ToolArgs, ToolInvocation } from '../hooks/types.js';
import type { AskUserHandler } from './ask-user/types.js';

/** What a matching policy decides. */
export type Decision = 'approve' | 'deny' | 'ask_user';

/**
 * A condition on a call. `args` carries both agy's keys (`CommandLine`) and their camelCase forms
 * (`commandLine`), at every level of plain objects. Sync or async; a throw denies the call (fail closed).
 */
export type PolicyPredicate = (args: ToolArgs, call: ToolInvocation) => MaybePromise<boolean>;

/** A reference to a configured MCP server; any object with a `name` fits (e.g. an MCP server config). */
export interface McpServerRef {
  /** The server's name, as configured for agy. */
  readonly name: string;
}

/** One tool-call rule. */
export interface Policy {
  /**
   * What the rule targets: a tool name (`run_command`), `*` (every tool), `server/tool` (one MCP tool) or
   * `server/*` (every tool of an MCP server). A bare name never matches an MCP tool.
   */
  tool: string;
  /** What happens when the rule matches. */
  decision: Decision;
  /** Optional condition; without one the rule matches every call to its target. */
  when?: PolicyPredicate;
  /** Who to ask; required for `ask_user` rules (validated by `enforce`). */
  askUser?: AskUserHandler;
  /** Label used in logs and deny reasons; defaults to `tool`. */
  name?: string;
  /** Deny: appended to the reason the model sees. Ask: shown to the human as the reason for asking. */
  message?: string;
}

/** A policy list as configs write it: single policies and builder results (arrays) mixed. */
export type PolicyList = ReadonlyArray<Policy | readonly Policy[]>;

/** How specific a target is: `run_command` / `server/tool`, `server/*`, or `*`. */
export type PolicyScope = 'specific' | 'server' | 'global';

/** Result of {@link evaluate}. */
export interface PolicyEvaluation {
  /** The outcome: the matched policy's decision, `deny` when its condition threw, `approve` when none matched. */
  decision: Decision;
  /** The policy that decided; absent when none matched. */
  policy?: Policy;
  /** The matched policy's scope. */
  scope?: PolicyScope;
  /**
   * The matched policy's precedence bucket, 0 (specific deny) to 8 (global approve):
   * `scope index * 3 + decision index` with scopes specific, server, global and decisions deny, ask_user, approve.
   */
  bucket?: number;
  /** What the policy's condition threw, when it did (the call is then denied). */
  error?: unknown;
}
