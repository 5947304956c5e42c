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
  allow,
  deny,
  askUser,
  allowAll,
  denyAll,
  safeDefaults,
  confirmRunCommand,
  workspaceOnly,
  enforce,
  evaluate,
};
