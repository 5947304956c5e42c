/**
 * Whether a `session/update`'s params pass the ACP SDK's own schema (`zSessionNotification`, protocol v1
 * stable), checked before the SDK sees them: the SDK parses every `session/update` in a router ahead of our
 * handler, and a parse failure there is reported with `console.error`, past the configured logger. The SDK does
 * not export that schema, so this is its mirror, for acceptance only (the SDK still parses what passes).
 *
 * Only what the SDK can reject is checked. Every optional field of its schema is salvaged (`defaultOnError`:
 * a wrong value becomes undefined, a bad array item is skipped), never rejected, so the mirror holds the
 * required fields alone: the update kind, and per kind the fields without a default. A required list
 * (`requiredDefaultOnError`) only has to be present. Extra fields pass, as in the SDK.
 * `test/connection/acp/session-update-check.test.ts` compares this mirror with the SDK's schema on mutated captures.
 */
import { z } from 'zod/v4';

/** A field that must be present, whatever its value (the SDK salvages a bad one to its default). */
const present = z.unknown().refine((value) => value !== undefined, { error: 'Required value is missing' });
/** A JSON integer of any size, at least 0 (the SDK's `wideInt().gte(0)`). */
const count = z
  .number()
  .refine(Number.isInteger, { error: 'Invalid input: expected int, received number' })
  .min(0);

const ContentBlock = z.discriminatedUnion('type', [
  z.object({ type: z.literal('text'), text: z.string() }),
  z.object({ type: z.literal('image'), data: z.string(), mimeType: z.string() }),
  z.object({ type: z.literal('audio'), data: z.string(), mimeType: z.string() }),
  z.object({ type: z.literal('resource_link'), name: z.string(), uri: z.string() }),
  z.object({
    type: z.literal('resource'),
    resource: z.union([
      z.object({ text: z.string(), uri: z.string() }),
      z.object({ blob: z.string(), uri: z.string() }),
    ]),
  }),
]);

const ContentChunk = z.object({ content: ContentBlock });

/** The required fields of each update kind the SDK knows; any other kind it rejects. */
const UPDATE_KINDS: Readonly<Record<string, z.ZodType>> = {
  user_message_chunk: ContentChunk,
  agent_message_chunk: ContentChunk,
  agent_thought_chunk: ContentChunk,
  tool_call: z.object({ toolCallId: z.string(), title: z.string() }),
  tool_call_update: z.object({ toolCallId: z.string() }),
  plan: z.object({ entries: present }),
  available_commands_update: z.object({ availableCommands: present }),
  current_mode_update: z.object({ currentModeId: z.string() }),
  config_option_update: z.object({ configOptions: present }),
  session_info_update: z.object({}),
  usage_update: z.object({ used: count, size: count }),
  notice: z.object({ severity: z.string(), title: z.string().min(1) }),
  compaction_update: z.object({ compactionId: z.string(), status: z.string() }),
  compaction_summary_chunk: z.object({ compactionId: z.string(), content: ContentBlock }),
};

/** Longest part of an agent's value quoted in a problem (a kind or a path can be megabytes long). */
const QUOTED = 80;

function quote(text: string): string {
  return text.length > QUOTED ? `${text.slice(0, QUOTED)}…` : text;
}

/** What the SDK would reject in `params` (`kind` is the update's kind), or undefined when it passes. */
export interface SessionUpdateProblem {
  /** `update.sessionUpdate` when it is a string (truncated), else undefined. */
  readonly kind: string | undefined;
  /** What is wrong, in a few words, with the path of the first bad field. */
  readonly problem: string;
}

/** Checks a `session/update`'s params as the SDK will; undefined when the SDK takes them. */
export function sessionUpdateProblem(params: unknown): SessionUpdateProblem | undefined {
  if (typeof params !== 'object' || params === null || Array.isArray(params))
    return { kind: undefined, problem: 'params is not an object' };
  const { sessionId, update } = params as Record<string, unknown>;
  if (typeof sessionId !== 'string') return { kind: undefined, problem: 'sessionId is not a string' };
  if (typeof update !== 'object' || update === null || Array.isArray(update))
    return { kind: undefined, problem: 'update is not an object' };
  const raw = (update as Record<string, unknown>).sessionUpdate;
  if (typeof raw !== 'string') return { kind: undefined, problem: 'update.sessionUpdate is not a string' };
  const kind = quote(raw);
  const schema = Object.hasOwn(UPDATE_KINDS, raw) ? UPDATE_KINDS[raw] : undefined;
  if (schema === undefined) return { kind, problem: `unknown update kind "${kind}"` };
  const result = schema.safeParse(update);
  if (result.success) return undefined;
  const [issue] = result.error.issues;
  const path = ['update', ...(issue?.path ?? [])].map(String).join('.');
  return { kind, problem: `${quote(path)}: ${quote(issue?.message ?? 'invalid')}` };
}
