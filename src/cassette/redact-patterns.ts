/**
 * The user's `record.redact` patterns: checked up front (one that matches the empty string would match
 * everywhere, so it is a `ConfigError`), compiled into text rules, and judged after a recording (one that
 * matched nothing, or matched in every string value, is reported as a warning). The reports name the pattern
 * by its index only: a pattern is often the secret itself.
 */
import { ConfigError } from '../errors.js';
import { escapeRegExp, type RedactTally, rule, type TextRule } from './sanitize-text.js';

/** A pattern the user wants removed: a literal string, or a regular expression (its flags are kept, `g` added). */
export type RedactPattern = string | RegExp;

/** Texts a pattern is tried on to see whether it can match the empty string. */
const PROBES = ['', 'a', 'A', '0', ' ', '\n', 'a b', '-_', '"', '{}'];

/** What is wrong with `pattern`, or undefined when it can be used. */
export function redactPatternProblem(pattern: unknown): string | undefined {
  if (typeof pattern === 'string')
    return pattern === '' ? 'is the empty string: it would match everywhere' : undefined;
  if (!(pattern instanceof RegExp)) return 'must be a string or a regular expression';
  const re = new RegExp(pattern.source, `${pattern.flags.replace(/[gy]/g, '')}g`);
  for (const probe of PROBES)
    for (const m of probe.matchAll(re))
      if (m[0] === '')
        return 'matches the empty string, so it would match everywhere (make it require at least one character)';
  return undefined;
}

/** The patterns as text rules replacing a match by `<redacted>`; a `ConfigError` names a bad one. */
export function compileRedact(patterns: readonly RedactPattern[] | undefined): TextRule[] {
  return (patterns ?? []).map((pattern, i) => {
    const problem = redactPatternProblem(pattern);
    if (problem) throw new ConfigError(`record.redact[${i}]`, problem);
    const re = typeof pattern === 'string' ? new RegExp(escapeRegExp(pattern), 'g') : pattern;
    return rule(re, '<redacted>', i);
  });
}

/** The warnings about patterns that matched nothing, or in every value, in a whole recording. */
export function redactWarnings(patterns: readonly RedactPattern[] | undefined, tally: RedactTally): string[] {
  const out: string[] = [];
  (patterns ?? []).forEach((pattern, i) => {
    const what = `record.redact[${i}] (${typeof pattern === 'string' ? 'a literal string' : 'a regular expression'})`;
    const texts = tally.texts[i] ?? 0;
    const matched = tally.matched[i] ?? 0;
    if (matched === 0) out.push(`${what} matched nothing in the recording: check the pattern`);
    else if (matched === texts)
      out.push(
        `${what} matched in every one of the ${texts} string values of the recording: it removes more than a secret`,
      );
  });
  return out;
}
