/** Declarative tool-call policies and their enforcement as a `preToolCall` hook. */
import { allow, allowAll, askUser, deny, denyAll } from './builders.js';
import { enforce } from './enforce.js';
import { evaluate } from './evaluate.js';
import { confirmRunCommand, safeDefaults } from './presets.js';
import { workspaceOnly } from './workspace.js';

export {
  type AllowOptions,
  type AskUserOptions,
  allow,
  allowAll,
  askUser,
  type DenyOptions,
  deny,
  denyAll,
} from './builders.js';
export { type EnforceOptions, enforce, validatePolicies } from './enforce.js';
export { PolicyConfigError } from './errors.js';
export {
  bucketOf,
  evaluate,
  flattenPolicies,
  matchesTarget,
  predicateArgs,
  scopeOf,
  sortPolicies,
} from './evaluate.js';
export { confirmRunCommand, READ_ONLY_TOOLS, safeDefaults } from './presets.js';
export type {
  Decision,
  McpServerRef,
  Policy,
  PolicyEvaluation,
  PolicyList,
  PolicyPredicate,
  PolicyScope,
} from './types.js';
export {
  isInside,
  isPathKey,
  pathArgs,
  pathsOutside,
  resolveRealPath,
  WORKSPACE_ONLY_POLICY_NAME,
  WORKSPACE_TOOLS,
  type WorkspaceOnlyOptions,
  workspaceOnly,
} from './workspace.js';

/** The policy builders and engine as one namespace: `policy.deny('run_command')`, `policy.enforce(list)`. */
export const policy = {
  /** Same as the `allow` export: a policy that allows matching tool calls. */
  allow,
  /** Same as the `deny` export: a policy that denies matching tool calls. */
  deny,
  /** Same as the `askUser` export: a policy that asks a human before matching tool calls run. */
  askUser,
  /** Same as the `allowAll` export: a policy that allows every tool call. */
  allowAll,
  /** Same as the `denyAll` export: a policy that denies every tool call. */
  denyAll,
  /** Same as the `safeDefaults` export: approves read-only built-in tools and asks a handler about the rest. */
  safeDefaults,
  /** Same as the `confirmRunCommand` export: allows every tool except `run_command` (denied, or asked about). */
  confirmRunCommand,
  /** Same as the `workspaceOnly` export: denies calls whose path arguments resolve outside the workspaces. */
  workspaceOnly,
  /** Same as the `enforce` export: a `preToolCall` hook that enforces a policy list. */
  enforce,
  /** Same as the `evaluate` export: the decision a policy list gives a tool call, asking no one. */
  evaluate,
};
