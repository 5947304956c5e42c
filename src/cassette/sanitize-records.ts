/**
 * The sanitizer on decoded values: a cassette's records are walked and their string values rewritten (never
 * the JSON around them), and a record's `line` that is itself JSON (agy's stream-json, an ACP message) is
 * parsed, walked and serialized again; a line that is not JSON is sanitized as one string. The text a model
 * streams in pieces (agy's `text_delta` updates of one step, an ACP session's message chunks) is sanitized as
 * one text across its pieces, so joining the pieces gives no secret back
 * (docs/reference/stream-json.md#text-streaming).
 */
import { goEscape } from './sanitize-secrets.js';
import type { CachedRules, RedactTally } from './sanitize-text.js';

/** The rules a walk applies. */
export interface RuleSet {
  /** For ordinary string values: everything, the user's `redact` patterns included. */
  readonly full: CachedRules;
  /** For object keys and protocol values: the credentials, secret shapes, paths and ids only. */
  readonly structural: CachedRules;
  /** Counts the `redact` patterns' matches, when given. */
  readonly tally?: RedactTally | undefined;
}

/**
 * Keys whose string values name protocol things (a record's or message's type, a step's state, a JSON-RPC
 * method): the user's `redact` patterns do not apply to them, so a short pattern cannot turn a record type into
 * one no reader knows.
 */
const PROTOCOL_KEYS = new Set([
  'type',
  'event',
  'state',
  'step_type',
  'status',
  'jsonrpc',
  'method',
  'sessionUpdate',
  'hook_event_name',
  'version',
]);

/** A record's own fields that are never rewritten (its offset, type, exit code, signal, direction, …). */
const ENVELOPE = new Set([
  't',
  'type',
  'code',
  'signal',
  'direction',
  'event',
  'server',
  'status',
  'format',
  'version',
  'backend',
  'recordedAt',
  'sanitized',
]);

/** Pieces already sanitized as part of a streamed text: the object holding one, and its field. */
type Overrides = Map<object, { field: string; value: string }>;

/** `value` with every string sanitized; the same reference when nothing changed. */
export function walk(value: unknown, set: RuleSet, key?: string, overrides?: Overrides): unknown {
  if (typeof value === 'string')
    return key !== undefined && PROTOCOL_KEYS.has(key)
      ? set.structural.apply(value)
      : set.full.apply(value, set.tally);
  if (Array.isArray(value)) {
    let changed = false;
    const out = value.map((item) => {
      const next = walk(item, set, undefined, overrides);
      if (next !== item) changed = true;
      return next;
    });
    return changed ? out : value;
  }
  if (typeof value !== 'object' || value === null) return value;
  const override = overrides?.get(value);
  let changed = false;
  const entries = Object.entries(value).map(([k, v]): [string, unknown] => {
    const name = set.structural.apply(k);
    const next = override?.field === k ? override.value : walk(v, set, k, overrides);
    if (name !== k || next !== v) changed = true;
    return [name, next];
  });
  // fromEntries defines own properties: a `__proto__` key stays data.
  return changed ? Object.fromEntries(entries) : value;
}

/** The parsed line when it is a JSON object or array, else undefined. */
function parseLine(line: string): unknown {
  const first = line.trimStart()[0];
  if (first !== '{' && first !== '[') return undefined;
  try {
    return JSON.parse(line);
  } catch {
    return undefined;
  }
}

/** A line sanitized: as JSON when it is, kept byte for byte when nothing changed, else as one string. */
export function sanitizeLine(
  line: string,
  set: RuleSet,
  parsed = parseLine(line),
  overrides?: Overrides,
): string {
  if (parsed === undefined) return set.full.apply(line, set.tally);
  const out = walk(parsed, set, undefined, overrides);
  if (out === parsed) return line;
  const json = JSON.stringify(out);
  // agy's encoder writes <, > and & as \u003c, \u003e, \u0026: a rewritten line keeps that style.
  return /\\u00(?:26|3c|3e)/i.test(line) ? goEscape(json) : json;
}

interface Piece {
  holder: Record<string, unknown>;
  field: string;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;

/** The streamed-text piece in an agy stdout line: a step's `text_delta`, keyed by conversation and step. */
function agyPiece(parsed: unknown): [string, Piece] | undefined {
  if (!isObject(parsed) || parsed.event !== 'step_update' || !isObject(parsed.step_update)) return undefined;
  const step = parsed.step_update;
  if (typeof step.text_delta !== 'string') return undefined;
  return [
    `agy ${String(step.conversation_id)} ${String(step.step_index)}`,
    { holder: step, field: 'text_delta' },
  ];
}

/** The streamed-text piece in an ACP message: a session's text chunk (`agent_message_chunk`, …). */
function acpPiece(message: unknown): [string, Piece] | undefined {
  if (!isObject(message) || message.method !== 'session/update' || !isObject(message.params))
    return undefined;
  const update = message.params.update;
  if (
    !isObject(update) ||
    typeof update.sessionUpdate !== 'string' ||
    !update.sessionUpdate.endsWith('_chunk')
  )
    return undefined;
  const content = update.content;
  if (!isObject(content) || typeof content.text !== 'string') return undefined;
  return [
    `acp ${String(message.params.sessionId)} ${update.sessionUpdate}`,
    { holder: content, field: 'text' },
  ];
}

/**
 * The records with every string value sanitized and each streamed text sanitized across its pieces. The
 * records are not changed; what changed is a copy.
 */
export function sanitizeRecords(records: readonly unknown[], set: RuleSet): unknown[] {
  const parsed = records.map((r) =>
    isObject(r) && typeof r.line === 'string' ? parseLine(r.line) : undefined,
  );
  const streams = new Map<string, Piece[]>();
  let acpRun = 0;
  records.forEach((r, i) => {
    if (!isObject(r)) return;
    let piece: [string, Piece] | undefined;
    if (r.type === 'stdout') piece = agyPiece(parsed[i]);
    else if (r.type === 'acp' && r.direction === 'in') {
      piece = acpPiece(r.message);
      // Any other message from the agent ends the texts being streamed: a chunk after it starts a new one.
      if (!piece) acpRun++;
      else piece[0] += ` ${acpRun}`;
    }
    if (!piece) return;
    const list = streams.get(piece[0]) ?? [];
    list.push(piece[1]);
    streams.set(piece[0], list);
  });
  const overrides: Overrides = new Map();
  for (const pieces of streams.values()) {
    const out = set.full.applyPieces(
      pieces.map((p) => p.holder[p.field] as string),
      set.tally,
    );
    pieces.forEach((p, i) => {
      overrides.set(p.holder, { field: p.field, value: out[i] ?? '' });
    });
  }
  return records.map((r, i) => sanitizeRecord(r, set, parsed[i], overrides));
}

function sanitizeRecord(record: unknown, set: RuleSet, parsed: unknown, overrides: Overrides): unknown {
  if (!isObject(record)) return walk(record, set, undefined, overrides);
  const entries = Object.entries(record).map(([k, v]): [string, unknown] => {
    if (ENVELOPE.has(k)) return [k, v];
    if (k === 'line' && typeof v === 'string') return [k, sanitizeLine(v, set, parsed, overrides)];
    return [k, walk(v, set, k, overrides)];
  });
  return Object.fromEntries(entries);
}
