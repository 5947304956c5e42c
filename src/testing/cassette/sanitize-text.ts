/**
 * The sanitizer's text engine: rules (a regular expression and what replaces a match) applied to a string, or
 * to a run of fragments that are one text cut into pieces (a model's streamed deltas). Matches are found in
 * the joined text, so a secret cut across fragments is found too; the replacement goes into the fragment where
 * the match starts and the rest of the match is removed from the following fragments, so joining the sanitized
 * fragments gives the sanitized whole text.
 */

/** One replacement rule. */
export interface TextRule {
  /** Global regular expression; a zero-length match is ignored (it would insert text everywhere). */
  readonly re: RegExp;
  /** The replacement of one match. */
  readonly replace: (match: RegExpExecArray) => string;
  /** For a `record.redact` pattern: its index, so its use can be counted. */
  readonly redact?: number | undefined;
}

/** How often each `record.redact` pattern matched, over the texts it was applied to. */
export class RedactTally {
  /** Non-empty texts each pattern was applied to. */
  readonly texts: number[];
  /** Of those, the texts in which it matched at least once. */
  readonly matched: number[];

  constructor(patterns: number) {
    this.texts = new Array<number>(patterns).fill(0);
    this.matched = new Array<number>(patterns).fill(0);
  }

  /** Counts one application of pattern `index` to a non-empty text. */
  count(index: number, matched: boolean): void {
    this.texts[index] = (this.texts[index] ?? 0) + 1;
    if (matched) this.matched[index] = (this.matched[index] ?? 0) + 1;
  }
}

interface Span {
  start: number;
  end: number;
  text: string;
}

/** The fragments with each span replaced: its text where it starts, nothing where it continues. */
function splice(fragments: readonly string[], spans: readonly Span[]): string[] {
  const out: string[] = [];
  let offset = 0;
  let s = 0;
  for (const fragment of fragments) {
    const end = offset + fragment.length;
    let piece = '';
    let at = offset;
    while (at < end) {
      const span = spans[s];
      if (!span || span.start >= end) {
        piece += fragment.slice(at - offset);
        break;
      }
      if (span.start > at) {
        piece += fragment.slice(at - offset, span.start - offset);
        at = span.start;
      }
      // `at` is inside the span: its text goes where it starts, the rest of it is dropped.
      if (at === span.start) piece += span.text;
      if (span.end > end) break;
      at = span.end;
      s++;
    }
    out.push(piece);
    offset = end;
  }
  return out;
}

/** The fragments with every rule applied in order, each to the joined result of the one before. */
export function applyRules(
  fragments: readonly string[],
  rules: readonly TextRule[],
  tally?: RedactTally,
): string[] {
  let current = [...fragments];
  for (const rule of rules) {
    const joined = current.length === 1 ? (current[0] ?? '') : current.join('');
    if (joined === '') break;
    const spans: Span[] = [];
    for (const m of joined.matchAll(rule.re)) {
      if (m[0].length === 0) continue;
      spans.push({ start: m.index, end: m.index + m[0].length, text: rule.replace(m) });
    }
    if (rule.redact !== undefined) tally?.count(rule.redact, spans.length > 0);
    if (spans.length > 0) current = splice(current, spans);
  }
  return current;
}

/** `s` as a literal inside a regular expression. */
export function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** A rule replacing every match of `re` (made global) by `text`, `$1` standing for its first group. */
export function rule(re: RegExp, text: string, redact?: number): TextRule {
  const flags = re.flags.includes('g') ? re.flags : `${re.flags}g`;
  const global = new RegExp(re.source, flags.replace('y', ''));
  return {
    re: global,
    replace: text.includes('$1') ? (m) => text.replace('$1', m[1] ?? '') : () => text,
    redact,
  };
}

/** A rule replacing any of `literals` (longest first) by its placeholder; undefined when there is none. */
export function literalRule(literals: ReadonlyMap<string, string>): TextRule | undefined {
  if (literals.size === 0) return undefined;
  const all = [...literals.keys()].sort((a, b) => b.length - a.length);
  return {
    re: new RegExp(all.map(escapeRegExp).join('|'), 'g'),
    replace: (m) => literals.get(m[0]) ?? m[0],
  };
}
