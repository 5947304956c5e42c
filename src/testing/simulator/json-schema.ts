/**
 * `--json-schema` takes inline JSON or a file path. The simulator only needs to know the flag was valid:
 * structured output comes from the scenario or from the turn's text (see `turn-runner.ts`).
 */
import { readFileSync } from 'node:fs';

/** An unusable `--json-schema`: reported on stderr, exit 1 (a pre-turn failure). */
export class JsonSchemaError extends Error {}

/**
 * Reads and parses the schema.
 *
 * @throws JsonSchemaError when the file cannot be read or the text is not a JSON object.
 */
export function loadJsonSchema(value: string): object {
  const trimmed = value.trim();
  let text = trimmed;
  if (!trimmed.startsWith('{')) {
    try {
      text = readFileSync(value, 'utf8');
    } catch (err) {
      throw new JsonSchemaError(`invalid --json-schema: cannot read ${value}: ${(err as Error).message}`);
    }
  }
  let schema: unknown;
  try {
    schema = JSON.parse(text);
  } catch (err) {
    throw new JsonSchemaError(`invalid --json-schema: ${(err as Error).message}`);
  }
  if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
    throw new JsonSchemaError('invalid --json-schema: the schema must be a JSON object');
  }
  return schema;
}
