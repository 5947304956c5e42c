/**
 * The PreToolUse answer each agy version honours (docs/reference/hooks.md#pretooluse-answer-by-version). The
 * SDK decides every call itself (policies, hooks, `askUser`); this turns its decision into the bytes the
 * running agy reads that way:
 *
 * - before 1.3.3 an approval is `{"decision":"allow"}` (measured on 1.2.3, where `{}` denies);
 * - from 1.3.3 an approval is `{}` (a hook author's probe: `allow`, `ask` and `permissionOverrides` only hand the
 *   call to agy's own permission check, which headless mode denies);
 * - a denial is `{"decision":"deny","reason":…}` on every version, so a denied call never runs whatever the
 *   version, and the relays' and the listener's fail-closed fallbacks (the same deny) stay denials;
 * - `ask`/`force_ask` pass through: on every version they mean "agy's own permission check decides".
 *
 * An approval that rewrites the arguments (`overwrite`) has no known form on 1.3.3 (the probe measured only
 * `{}`): it is denied there with a reason that says so, rather than risk the call running with the model's
 * original arguments.
 */
import { isRecord } from '../../internal/guards.js';
import { atLeastVersion, versionParts } from '../../internal/version.js';

/** How an approval is written: `decision` (`{"decision":"allow"}`) or `empty` (`{}`, 1.3.3 and later). */
export type PreToolUseDialect = 'decision' | 'empty';

/** The first agy version that runs a tool on `{}` and not on `{"decision":"allow"}`. */
export const EMPTY_APPROVAL_SINCE = '1.3.3';

/**
 * The dialect of an agy version: `empty` from {@link EMPTY_APPROVAL_SINCE} on (later versions are assumed to
 * keep it until measured otherwise), `decision` before. An unknown version (the probe failed) gets `decision`,
 * the documented form: either way a denial stays a denial, and an approval on 1.3.3 then meets agy's own
 * permission check instead of running.
 */
export function preToolUseDialect(version: string | null): PreToolUseDialect {
  // Only a plain `x.y.z` counts: anything else (`1.3.3-preview`) is unknown, and unknown fails closed.
  const v = version === null ? null : versionParts(version, 'exact');
  if (v === null) return 'decision';
  return atLeastVersion(v, versionParts(EMPTY_APPROVAL_SINCE, 'exact')!) ? 'empty' : 'decision';
}

/** The SDK's PreToolUse answer (an explicit `decision`, as the dispatcher writes it) in `dialect`. */
export function toAgyPreToolUseAnswer(answer: unknown, dialect: PreToolUseDialect): unknown {
  if (dialect === 'decision' || !isRecord(answer) || answer.decision !== 'allow') return answer;
  if (answer.overwrite !== undefined) {
    return {
      decision: 'deny',
      reason:
        `agy-sdk: this agy (${EMPTY_APPROVAL_SINCE} or later) has no known way to approve a call with ` +
        'rewritten arguments, so the call is denied rather than run with the original ones',
    };
  }
  return {};
}

/**
 * Whether agy, reading `answer` in `dialect`, lets the call go ahead: `{"decision":"allow"}` before 1.3.3, `{}`
 * (an object without a decision) from 1.3.3. A non-object answer counts as an approval, as it always did here:
 * the SDK never sends one for PreToolUse.
 */
export function approvesCall(answer: unknown, dialect: PreToolUseDialect): boolean {
  if (!isRecord(answer)) return true;
  return dialect === 'empty' ? answer.decision === undefined : answer.decision === 'allow';
}
