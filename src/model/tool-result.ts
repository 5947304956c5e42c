/**
 * Turning what a tool handler returns into an MCP `CallToolResult`.
 * A string becomes one text block; a `CallToolResult` (e.g. from `toolResult`) passes through; anything else
 * becomes JSON text, plus `structuredContent` when the tool declares an output schema.
 */
import { loadSync } from '../internal/load-sync.js';
import type { CallToolResult, ContentBlock } from './mcp-types.js';
import type { SchemaIssue, ZodObjectSchema } from './tool-schema.js';

export type { CallToolResult, ContentBlock };

/** Options of {@link toolResult}. */
export interface ToolResultOptions {
  /** Marks the result as a tool-level failure the model should see and react to. */
  isError?: boolean;
  /** Machine-readable result; must match the tool's output schema when it has one. */
  structuredContent?: Record<string, unknown>;
}

/** Builds a `CallToolResult` a handler can return as is: a string becomes a text block. */
export function toolResult(
  content: string | ContentBlock | readonly ContentBlock[],
  options: ToolResultOptions = {},
): CallToolResult {
  const blocks: ContentBlock[] =
    typeof content === 'string'
      ? [{ type: 'text', text: content }]
      : Array.isArray(content)
        ? [...content]
        : [content as ContentBlock];
  const result: CallToolResult = { content: blocks };
  if (options.structuredContent !== undefined) result.structuredContent = options.structuredContent;
  if (options.isError) result.isError = true;
  return result;
}

/** A failed call the model sees as an error: `{ isError: true, content: [text] }`. */
export function toolError(message: string): CallToolResult {
  return { content: [{ type: 'text', text: message }], isError: true };
}

const RESULT_KEYS = new Set(['content', 'structuredContent', 'isError', '_meta']);

/**
 * Whether `value` is shaped like a `CallToolResult`: an object with a `content` array of valid MCP content
 * blocks and no keys beyond `content`, `structuredContent`, `isError` and `_meta`. The key check keeps a
 * domain object that merely has a `content` field from being mistaken for a result.
 */
export function isCallToolResult(value: unknown): value is CallToolResult {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const record = value as Record<string, unknown>;
  if (!Array.isArray(record.content)) return false;
  if (!Object.keys(record).every((key) => RESULT_KEYS.has(key))) return false;
  if (record.isError !== undefined && typeof record.isError !== 'boolean') return false;
  const structured = record.structuredContent;
  if (
    structured !== undefined &&
    (typeof structured !== 'object' || structured === null || Array.isArray(structured))
  ) {
    return false;
  }
  const schema = contentBlockSchema();
  return record.content.every((block) => schema.safeParse(block).success);
}

type McpTypes = typeof import('@modelcontextprotocol/sdk/types.js');
let contentBlock: McpTypes['ContentBlockSchema'] | undefined;

/** The MCP SDK's content block schema, loaded on the first check (with it zod), not with the package. */
function contentBlockSchema(): McpTypes['ContentBlockSchema'] {
  contentBlock ??= loadSync<McpTypes>('@modelcontextprotocol/sdk/types.js').ContentBlockSchema;
  return contentBlock;
}

/** The outcome of converting a handler's return value. */
export type ConvertedToolResult = { ok: true; result: CallToolResult } | { ok: false; message: string };

/** Converts a handler's return value; fails when it does not match `output` or cannot be serialized. */
export function toCallToolResult(value: unknown, output?: ZodObjectSchema): ConvertedToolResult {
  if (isCallToolResult(value)) return { ok: true, result: value };
  if (output) {
    const parsed = output.safeParse(value);
    if (!parsed.success) {
      return {
        ok: false,
        message: `returned a value that does not match its output schema: ${formatIssues(parsed.error)}`,
      };
    }
    return serialize(parsed.data, true);
  }
  if (typeof value === 'string') return { ok: true, result: { content: [{ type: 'text', text: value }] } };
  // A handler that returns nothing produced no content; that is a success, not an error.
  if (value === undefined) return { ok: true, result: { content: [] } };
  return serialize(value, false);
}

function serialize(value: unknown, structured: boolean): ConvertedToolResult {
  let text: string | undefined;
  try {
    text = JSON.stringify(value);
  } catch (error) {
    return {
      ok: false,
      message: `returned a value that cannot be serialized as JSON: ${error instanceof Error ? error.message : String(error)}`,
    };
  }
  if (text === undefined)
    return { ok: false, message: `returned a value that cannot be serialized as JSON (${typeof value})` };
  const result: CallToolResult = { content: [{ type: 'text', text }] };
  if (structured) result.structuredContent = value as Record<string, unknown>;
  return { ok: true, result };
}

/** `path: message; path: message`, short enough to show the model. */
export function formatIssues(error: { readonly issues: readonly SchemaIssue[] }): string {
  return error.issues
    .map((issue) =>
      issue.path.length > 0 ? `${issue.path.map(String).join('.')}: ${issue.message}` : issue.message,
    )
    .join('; ');
}
