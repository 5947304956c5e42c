/**
 * Policy evaluation. Precedence, highest first:
 *   specific deny > specific ask_user > specific approve >
 *   server-wildcard deny > ask_user > approve > global-wildcard deny > ask_user > approve.
 * Within a bucket the first match in registration order wins; no match approves.
 * A condition that throws denies (fail closed).
 */
import { isPlainObject, normalizeKey, setOwn } from '../hooks/args.js';
import type { ToolArgs, ToolInvocation } from '../hooks/types.js';
import { sameBuiltinTool } from '../model/tool-aliases.js';
import type { Decision, Policy, PolicyEvaluation, PolicyList, PolicyScope } from './types.js';

const SCOPES: readonly PolicyScope[] = ['specific', 'server', 'global'];
const DECISIONS: readonly Decision[] = ['deny', 'ask_user', 'approve'];

/** The scope a target string belongs to. */
export function scopeOf(tool: string): PolicyScope {
  if (tool === '*') return 'global';
  if (tool.endsWith('/*')) return 'server';
  return 'specific';
}

/** The precedence bucket (0–8) of a policy; lower wins. */
export function bucketOf(policy: Policy): number {
  return SCOPES.indexOf(scopeOf(policy.tool)) * 3 + DECISIONS.indexOf(policy.decision);
}

/** Flattens a config's policy list (single policies and builder arrays). */
export function flattenPolicies(policies: PolicyList): Policy[] {
  return policies.flatMap((p) => (Array.isArray(p) ? [...(p as readonly Policy[])] : [p as Policy]));
}

/** Orders policies by bucket, keeping registration order within a bucket (sort is stable). */
export function sortPolicies(policies: readonly Policy[]): Policy[] {
  return [...policies].sort((a, b) => bucketOf(a) - bucketOf(b));
}

/**
 * Whether a policy's target covers the call. MCP calls match only `*`, `server/*` and `server/tool`. A
 * built-in tool matches under each backend's name for it (`run_command` on agy is `run_shell_command` on Gemini
 * CLI; `model/tool-aliases.ts`), so a policy means the same on every backend.
 */
export function matchesTarget(tool: string, call: ToolInvocation): boolean {
  if (tool === '*') return true;
  const slash = tool.indexOf('/');
  if (slash === -1) return call.server === undefined && sameBuiltinTool(tool, call.name);
  if (call.server === undefined || tool.slice(0, slash) !== call.server) return false;
  const toolPart = tool.slice(slash + 1);
  return toolPart === '*' || toolPart === call.name;
}

/** The args a condition sees: agy's keys and their camelCase forms, at every level (agy's keys win clashes). */
export function predicateArgs(call: ToolInvocation): ToolArgs {
  return dualKeys(call.args) as ToolArgs;
}

function dualKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(dualKeys);
  if (!isPlainObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) setOwn(out, key, dualKeys(item));
  for (const [key, item] of Object.entries(value)) {
    const camel = normalizeKey(key);
    if (!Object.hasOwn(out, camel)) setOwn(out, camel, dualKeys(item));
  }
  return out;
}

/**
 * Finds the policy that decides `call`. Conditions run lazily, in precedence order, so a condition is only
 * evaluated when every higher-precedence candidate did not match. Does not ask anyone: an `ask_user` result
 * is returned as such.
 */
export async function evaluate(policies: PolicyList, call: ToolInvocation): Promise<PolicyEvaluation> {
  return evaluateSorted(sortPolicies(flattenPolicies(policies)), call);
}

/** {@link evaluate} for a list already ordered by {@link sortPolicies}. */
export async function evaluateSorted(
  sorted: readonly Policy[],
  call: ToolInvocation,
): Promise<PolicyEvaluation> {
  for (const policy of sorted) {
    if (!matchesTarget(policy.tool, call)) continue;
    const found = { policy, scope: scopeOf(policy.tool), bucket: bucketOf(policy) };
    if (policy.when) {
      try {
        // A fresh view per condition, so one condition cannot change what the next sees.
        if (!(await policy.when(predicateArgs(call), call))) continue;
      } catch (error) {
        return { decision: 'deny', ...found, error };
      }
    }
    return { decision: policy.decision, ...found };
  }
  return { decision: 'approve' };
}

/** The label a policy goes by in messages: its name, else its target. */
export function policyLabel(policy: Policy): string {
  return policy.name || policy.tool;
}
