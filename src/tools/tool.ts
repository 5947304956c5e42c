/**
 * `tool()`: an in-process tool the agent can call. The SDK serves it to agy over MCP from the session's
 * listener; the handler runs in the host process with the validated arguments and a {@link ToolContext}.
 */

import { ConfigError } from '../errors.js';
import type { ToolAnnotations } from './mcp-types.js';
import type { SchemaIssue, SchemaParseResult, ZodObjectSchema } from './schema.js';
import type { ToolContext } from './tool-context.js';
import type { CallToolResult } from './tool-result.js';

export type { SchemaIssue, SchemaParseResult, ToolAnnotations, ZodObjectSchema };

/** Tool arguments are always a JSON object, so the input schema is a zod object (strict, loose or refined). */
export type ToolInputSchema = ZodObjectSchema;

/** MCP requires structured output to be a JSON object, so the output schema is a zod object too. */
export type ToolOutputSchema = ZodObjectSchema;

/** The parsed type of a schema (`z.output`, read structurally). */
export type SchemaOutput<S> = S extends {
  /** zod's internals. */
  readonly _zod: {
    /** The parsed type (phantom). */
    readonly output: infer O;
  };
}
  ? O
  : unknown;

/** The accepted type of a schema (`z.input`, read structurally). */
export type SchemaInput<S> = S extends {
  /** zod's internals. */
  readonly _zod: {
    /** The accepted type (phantom). */
    readonly input: infer I;
  };
}
  ? I
  : unknown;

/**
 * What a handler may return. With an output schema: a value matching it (sent as JSON text and as
 * `structuredContent`) or a `CallToolResult`. Without: a string (one text block), a `CallToolResult`
 * (sent as is), or any JSON-serializable value (sent as JSON text).
 */
export type ToolHandlerResult<O extends ToolOutputSchema | undefined> = O extends ToolOutputSchema
  ? SchemaInput<O> | CallToolResult
  : unknown;

/** A tool's implementation; may be sync or async. A thrown error becomes an error result for the model. */
export type ToolHandler<I extends ToolInputSchema, O extends ToolOutputSchema | undefined> = (
  args: SchemaOutput<I>,
  ctx: ToolContext,
) => ToolHandlerResult<O> | Promise<ToolHandlerResult<O>>;

/** The first argument of {@link tool}. */
export interface ToolSpec<I extends ToolInputSchema, O extends ToolOutputSchema | undefined = undefined> {
  /** The tool's name. Any string: it is normalized to a provider-safe name when served (see `names.ts`). */
  name: string;
  /** What the tool does and when to use it; the model reads this. */
  description: string;
  /** Schema of the arguments; the handler only runs on arguments it accepts. */
  input: I;
  /** Schema of the result; when given, the result is validated and also sent as `structuredContent`. */
  output?: O;
  /** Human-readable display name. */
  title?: string;
  /** MCP behaviour hints (`readOnlyHint`, `destructiveHint`, …). Hints only: nothing enforces them. */
  annotations?: ToolAnnotations;
}

/** A tool ready to be served: what {@link tool} returns. */
export interface ToolDefinition<
  I extends ToolInputSchema = ToolInputSchema,
  O extends ToolOutputSchema | undefined = ToolOutputSchema | undefined,
> {
  /** The tool's name as the author wrote it. */
  readonly name: string;
  /** What the tool does; the model reads this. */
  readonly description: string;
  /** Schema of the arguments. */
  readonly input: I;
  /** Schema of the result, if any. */
  readonly output: O | undefined;
  /** Human-readable display name. */
  readonly title: string | undefined;
  /** MCP behaviour hints. */
  readonly annotations: ToolAnnotations | undefined;
  /**
   * Runs the tool. Declared as a method so a `ToolDefinition<SpecificSchema>` fits in a `ToolDefinition[]`;
   * the server only calls it with arguments the input schema accepted.
   */
  handler(args: SchemaOutput<I>, ctx: ToolContext): ToolHandlerResult<O> | Promise<ToolHandlerResult<O>>;
}

/**
 * Defines a tool.
 *
 * ```ts
 * const add = tool(
 *   { name: 'add', description: 'Adds two numbers', input: z.object({ a: z.number(), b: z.number() }) },
 *   ({ a, b }) => String(a + b),
 * );
 * ```
 */
export function tool<I extends ToolInputSchema, O extends ToolOutputSchema | undefined = undefined>(
  spec: ToolSpec<I, O>,
  handler: ToolHandler<I, O>,
): ToolDefinition<I, O> {
  if (typeof spec.name !== 'string' || spec.name.length === 0)
    throw new ConfigError('tool.name', 'must be a non-empty string');
  if (!isObjectSchema(spec.input))
    throw new ConfigError(
      `tool(${spec.name}).input`,
      'must be a zod object schema (z.object({…})); a JSON Schema is not accepted',
    );
  if (spec.output !== undefined && !isObjectSchema(spec.output)) {
    throw new ConfigError(`tool(${spec.name}).output`, 'must be a zod object schema');
  }
  if (typeof handler !== 'function')
    throw new ConfigError(`tool(${spec.name}).handler`, 'must be a function');
  return Object.freeze({
    name: spec.name,
    description: spec.description,
    input: spec.input,
    output: spec.output,
    title: spec.title,
    annotations: spec.annotations,
    handler,
  });
}

// Checked structurally rather than with `instanceof` so schemas from another copy of zod 4 still work.
function isObjectSchema(schema: unknown): boolean {
  const zod = (schema as { _zod?: { def?: { type?: unknown } } } | null | undefined)?._zod;
  return zod?.def?.type === 'object';
}
