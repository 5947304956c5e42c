/**
 * `tool()`: an in-process tool the agent can call. The SDK serves it to agy over MCP from the session's
 * listener; the handler runs in the host process with the validated arguments and a {@link ToolContext}.
 */

import { ConfigError } from '../errors.js';
import type {
  ToolDefinition,
  ToolHandler,
  ToolInputSchema,
  ToolOutputSchema,
  ToolSpec,
} from '../model/tool.js';

export type {
  SchemaInput,
  SchemaIssue,
  SchemaOutput,
  SchemaParseResult,
  ToolAnnotations,
  ToolDefinition,
  ToolHandler,
  ToolHandlerResult,
  ToolInputSchema,
  ToolOutputSchema,
  ToolSpec,
  ZodObjectSchema,
} from '../model/tool.js';

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
