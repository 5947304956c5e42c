/**
 * The AI SDK prompt, read as one agy turn: the system messages, the history before the last assistant message,
 * the agy conversation that history belongs to (from `providerOptions.agy.conversationId`), and the new user
 * turn as agy content parts. agy keeps its own history, so a continued conversation sends only the new turn.
 */
import type {
  LanguageModelV4FilePart,
  LanguageModelV4Message,
  LanguageModelV4Prompt,
  SharedV4Warning,
} from '@ai-sdk/provider';
import { UnsupportedError, UsageError } from '../connection/index.js';
import { type ContentPart, fromBytes } from '../index.js';

/** The AI SDK provider key agy's metadata and options live under. */
export const PROVIDER_KEY = 'agy';

/** A prompt split into what agy needs for one turn. */
export interface PromptPlan {
  /** The system messages' text, joined; undefined when there is none. */
  system: string | undefined;
  /** The messages before the new turn, each as `role: text` (tool parts left out), for comparison and replay. */
  history: string[];
  /** The new turn's messages, as `history` writes them (what the history of the next call will repeat). */
  turn: string[];
  /** The agy conversation the history came from: the last assistant message's `providerOptions.agy`. */
  conversationId: string | undefined;
  /** The new user turn, as agy content parts. */
  parts: ContentPart[];
  /** What the prompt held that agy cannot take. */
  warnings: SharedV4Warning[];
}

/** The text parts of a message, joined (what `history` records and compares). */
function messageText(message: LanguageModelV4Message): string {
  if (message.role === 'system') return message.content;
  return message.content.map((part) => (part.type === 'text' ? part.text : '')).join('');
}

/** One message as the history records it. */
function historyLine(message: LanguageModelV4Message): string {
  return `${message.role}: ${messageText(message)}`;
}

/** `providerOptions.agy.conversationId` of a message or of any of its parts. */
function conversationIdOf(message: LanguageModelV4Message): string | undefined {
  const fromOptions = (options: unknown): string | undefined => {
    const id = (options as Record<string, Record<string, unknown>> | undefined)?.[PROVIDER_KEY]
      ?.conversationId;
    return typeof id === 'string' && id !== '' ? id : undefined;
  };
  const own = fromOptions(message.providerOptions);
  if (own || message.role === 'system') return own;
  for (const part of message.content) {
    const id = fromOptions(part.providerOptions);
    if (id) return id;
  }
  return undefined;
}

/** Bytes of a file part's data (URLs are downloaded by the AI SDK: `supportedUrls` is empty). */
function fileBytes(part: LanguageModelV4FilePart): Uint8Array {
  const { data } = part;
  if (data.type === 'data')
    return typeof data.data === 'string' ? Buffer.from(data.data, 'base64') : data.data;
  if (data.type === 'text') return Buffer.from(data.text, 'utf8');
  throw new UnsupportedError(
    `file part (${data.type})`,
    `agy takes files as bytes; pass the data itself (a ${data.type === 'url' ? 'URL the AI SDK could not download' : 'provider reference'} cannot be sent)`,
  );
}

/** The new user turn's parts: text as strings, files through `fromBytes` (which checks the media type). */
function userParts(messages: readonly LanguageModelV4Message[], warnings: SharedV4Warning[]): ContentPart[] {
  const parts: ContentPart[] = [];
  for (const message of messages) {
    if (message.role !== 'user') {
      warnings.push({
        type: 'other',
        message: `a ${message.role} message after the last assistant message was left out: agy runs its own tools, so there are no client tool results to send`,
      });
      continue;
    }
    for (const part of message.content) {
      if (part.type === 'text') {
        if (part.text !== '') parts.push(part.text);
      } else parts.push(fromBytes(fileBytes(part), part.mediaType, fileName(part)));
    }
  }
  return parts;
}

function fileName(part: LanguageModelV4FilePart): { name?: string } {
  return part.filename ? { name: part.filename } : {};
}

/** Splits the prompt at its last assistant message. Throws `UsageError` when no user turn follows it. */
export function planPrompt(prompt: LanguageModelV4Prompt): PromptPlan {
  const warnings: SharedV4Warning[] = [];
  const system = prompt.filter((m) => m.role === 'system').map(messageText);
  const rest = prompt.filter((m) => m.role !== 'system');
  const lastAssistant = rest.findLastIndex((m) => m.role === 'assistant');
  const before = rest.slice(0, lastAssistant + 1);
  const turn = rest.slice(lastAssistant + 1);
  const parts = userParts(turn, warnings);
  if (parts.length === 0)
    throw new UsageError('the prompt must end with a user message that has text or a file (the new turn)');
  const assistant = lastAssistant >= 0 ? rest[lastAssistant] : undefined;
  return {
    system: system.length > 0 ? system.join('\n\n') : undefined,
    history: before.map(historyLine),
    turn: turn.map(historyLine),
    conversationId: assistant ? conversationIdOf(assistant) : undefined,
    parts,
    warnings,
  };
}

/**
 * A history agy does not hold, written into the new turn's first text part so a fresh conversation sees it.
 * Used only when the history cannot be continued in place (see docs/guides/ai-sdk.md#conversations).
 */
export function replayHistory(plan: PromptPlan): ContentPart[] {
  if (plan.history.length === 0) return plan.parts;
  const transcript = [
    'The conversation so far (replayed: this is a new session):',
    ...plan.history,
    '',
    'The new message:',
  ].join('\n');
  return [transcript, ...plan.parts];
}
