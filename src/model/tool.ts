/**
 * The types of an in-process tool (what `tool()` in `tools/tool.ts` returns): the SDK's tool server serves it
 * to the agent over MCP and runs its handler with the validated arguments and a {@link ToolContext}. They live
 * here, below both the tool server and `tools/`, because both sides of the host seam read them.
 */

import type { ToolAnnotations } from './mcp-types.js';
import type { ToolContext } from './tool-context.js';
import type { CallToolResult } from './tool-result.js';
import type { SchemaIssue, SchemaParseResult, ZodObjectSchema } from './tool-schema.js';

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

/** The first argument of `tool()`. */
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

/** A tool ready to be served: what `tool()` returns. */
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
