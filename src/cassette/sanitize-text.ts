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

/** A piece of one fragment; a frozen one is a replacement, which later rules leave alone. */
interface Segment {
  text: string;
  fragment: number;
  frozen: boolean;
}

/** A run of unfrozen segments with each span replaced: its text where it starts, nothing where it continues. */
function splice(run: readonly Segment[], spans: readonly Span[]): Segment[] {
  const out: Segment[] = [];
  const keep = (text: string, fragment: number) => {
    if (text) out.push({ text, fragment, frozen: false });
  };
  let offset = 0;
  let s = 0;
  for (const { text, fragment } of run) {
    const end = offset + text.length;
    let at = offset;
    while (at < end) {
      const span = spans[s];
      if (!span || span.start >= end) {
        keep(text.slice(at - offset), fragment);
        break;
      }
      if (span.start > at) {
        keep(text.slice(at - offset, span.start - offset), fragment);
        at = span.start;
      }
      // `at` is inside the span: its text goes where it starts, the rest of it is dropped.
      if (at === span.start) out.push({ text: span.text, fragment, frozen: true });
      if (span.end > end) break;
      at = span.end;
      s++;
    }
    offset = end;
  }
  return out;
}

/** The segments with one rule applied to each run of unfrozen text; whether it matched anywhere. */
function applyRule(segments: readonly Segment[], rule: TextRule): [Segment[], boolean] {
  const out: Segment[] = [];
  let matched = false;
  for (let i = 0; i < segments.length; ) {
    let j = i;
    while (j < segments.length && !segments[j]?.frozen) j++;
    if (j === i) {
      out.push(segments[i] as Segment);
      i++;
      continue;
    }
    const run = segments.slice(i, j);
    const joined = run.length === 1 ? (run[0]?.text ?? '') : run.map((r) => r.text).join('');
    const spans: Span[] = [];
    for (const m of joined.matchAll(rule.re)) {
      if (m[0].length === 0) continue;
      spans.push({ start: m.index, end: m.index + m[0].length, text: rule.replace(m) });
    }
    if (spans.length > 0) matched = true;
    out.push(...(spans.length > 0 ? splice(run, spans) : run));
    i = j;
  }
  return [out, matched];
}

/**
 * The fragments with every rule applied in order. A rule sees the text between earlier replacements, joined
 * across fragments, and never a replacement itself (a `redact` pattern cannot match inside `<secret:…>`).
 */
export function applyRules(
  fragments: readonly string[],
  rules: readonly TextRule[],
  tally?: RedactTally,
): string[] {
  let segments: Segment[] = fragments.map((text, fragment) => ({ text, fragment, frozen: false }));
  const empty = fragments.every((f) => f === '');
  for (const rule of rules) {
    const [next, matched] = applyRule(segments, rule);
    segments = next;
    if (rule.redact !== undefined && !empty) tally?.count(rule.redact, matched);
  }
  const out = fragments.map(() => '');
  for (const segment of segments) out[segment.fragment] += segment.text;
  return out;
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
    replace: text.includes('$1') ? (m) => text.replace('$1', () => m[1] ?? '') : () => text,
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

/** How much text a {@link CachedRules} keeps (input and output characters) before it starts afresh. */
const CACHE_CHARS = 32 * 1024 * 1024;

/**
 * Rules with their results kept by input text. A cassette repeats most of its strings (keys, ids, states,
 * names), and the recorder sanitizes the whole cassette again after every turn: each distinct string is
 * worked on once. A new instance is made whenever the rules change (a secret learned later).
 */
export class CachedRules {
  /** The rules, in order. */
  readonly rules: readonly TextRule[];
  readonly #redact: number[];
  readonly #entries = new Map<string, { out: readonly string[]; matched: readonly number[] }>();
  #chars = 0;

  constructor(rules: readonly TextRule[]) {
    this.rules = rules;
    this.#redact = rules.flatMap((r) => (r.redact === undefined ? [] : [r.redact]));
  }

  /** `text` with the rules applied; the redact patterns' use counted into `tally`. */
  apply(text: string, tally?: RedactTally): string {
    return this.#cached(text, [text], tally)[0] ?? '';
  }

  /** The fragments of one streamed text with the rules applied across them (see {@link applyRules}). */
  applyPieces(fragments: readonly string[], tally?: RedactTally): readonly string[] {
    return fragments.length === 1
      ? [this.apply(fragments[0] ?? '', tally)]
      : this.#cached(JSON.stringify(fragments), fragments, tally);
  }

  #cached(key: string, fragments: readonly string[], tally?: RedactTally): readonly string[] {
    let entry = this.#entries.get(key);
    if (!entry) {
      const local = new RedactTally(Math.max(0, ...this.#redact) + 1);
      const out = applyRules(fragments, this.rules, local);
      entry = { out, matched: this.#redact.filter((i) => (local.matched[i] ?? 0) > 0) };
      const size = key.length * 2;
      this.#chars += size;
      if (this.#chars > CACHE_CHARS) {
        this.#entries.clear();
        this.#chars = size;
      }
      this.#entries.set(key, entry);
    }
    if (tally && fragments.some((f) => f !== ''))
      for (const i of this.#redact) tally.count(i, entry.matched.includes(i));
    return entry.out;
  }
}
