/**
 * Which agy builds know which turn-shaping flags (docs/reference/stream-json.md#flags-by-version). A flag (or a
 * flag's value) is passed only to a build known to accept it: the launch probes `agy --version` first and a
 * build that is not known to accept one is an `UnsupportedError` naming the flag and the version, before agy
 * runs. "Known" means seen accepted by that build or an older one (a capture, or an author's report of the
 * version); below the first build seen with it, nothing shows what agy does, so the SDK does not pass it.
 */
import { UnsupportedError } from '../../../errors.js';
import { atLeastVersion, versionParts } from '../../../internal/version.js';
import type { LaunchSpec } from './command-line.js';

/** One flag (and value) that only some agy builds accept. */
export interface GatedFlag {
  /** As it appears in argv, e.g. `--mode plan`. */
  readonly flag: string;
  /** The `AgentConfig` field that asks for it. */
  readonly field: string;
  /** The first build seen accepting it, or null when no build is known to (then it is refused on every one). */
  readonly since: string | null;
  /** What is known, for the error message. */
  readonly note: string;
}

/** `--mode plan`: ctxloom's notes on agy 1.0.7–1.1.2 (accepted, not enforced headless on 1.1.2). */
const MODE_PLAN_SINCE = '1.1.2';
/** `--sandbox`: agy-real/jdiazromeral-agy-plugin-cc (a 1.1.9 print-mode run with `--sandbox`). */
const SANDBOX_SINCE = '1.1.9';
/** `--mode accept-edits`: agy-real/littlebearapps-untether-agy-1.3.1 (`d04-accept-edits`). */
const MODE_ACCEPT_EDITS_SINCE = '1.3.1';

/** The gated flags a launch asks for, in argv order. */
export function gatedFlags(spec: LaunchSpec): GatedFlag[] {
  const out: GatedFlag[] = [];
  if (spec.effort === 'xhigh' || spec.effort === 'max')
    out.push({
      flag: `--effort ${spec.effort}`,
      field: 'effort',
      since: null,
      note: "agy's --help lists --effort low|medium|high only",
    });
  if (spec.mode === 'plan')
    out.push({
      flag: '--mode plan',
      field: 'mode',
      since: MODE_PLAN_SINCE,
      note: `first seen on ${MODE_PLAN_SINCE}`,
    });
  if (spec.mode === 'accept-edits')
    out.push({
      flag: '--mode accept-edits',
      field: 'mode',
      since: MODE_ACCEPT_EDITS_SINCE,
      note: `first seen on ${MODE_ACCEPT_EDITS_SINCE}`,
    });
  if (spec.sandbox)
    out.push({
      flag: '--sandbox',
      field: 'sandbox',
      since: SANDBOX_SINCE,
      note: `first seen on ${SANDBOX_SINCE}`,
    });
  return out;
}

/** Whether `version` is `since` or newer; false when either does not parse. */
function atLeast(version: string, since: string): boolean {
  const v = versionParts(version, 'leading');
  const s = versionParts(since, 'leading');
  return v !== null && s !== null && atLeastVersion(v, s);
}

/**
 * Refuses, before launch, every gated flag `version` is not known to accept: an `UnsupportedError` whose
 * feature is the config field and whose message names the flag and the version. A flag no build is known to
 * accept is refused whatever the version. With the version unknown (`null`: the probe printed none or timed
 * out) the others are passed and `onUnknownVersion` is told: agy itself refuses a flag it does not know
 * (`unknown flag`, exit 2), so nothing is silently dropped.
 */
export function checkFlagSupport(
  flags: readonly GatedFlag[],
  version: string | null,
  onUnknownVersion: (flag: GatedFlag) => void,
): void {
  for (const f of flags) {
    if (f.since === null)
      throw new UnsupportedError(
        f.field,
        `${f.flag}: no agy build is known to accept it (${f.note}); this agy is ${version ?? 'of an unknown version'}`,
      );
    if (version === null) {
      onUnknownVersion(f);
      continue;
    }
    if (!atLeast(version, f.since))
      throw new UnsupportedError(
        f.field,
        `${f.flag}: agy ${version} is not known to accept it (${f.note}); update agy or leave ${f.field} unset`,
      );
  }
}
