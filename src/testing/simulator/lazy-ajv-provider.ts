/**
 * The JSON Schema validator of the simulator's MCP client (`mcp-client.ts`): the MCP SDK's own
 * `AjvJsonSchemaValidator`, required from node_modules the first time a tool's `outputSchema` is checked. Loading
 * ajv with its formats costs ~30 ms of CPU, which only a tool with an `outputSchema` needs. Validation itself is
 * the SDK's, unchanged: the same class, built with the same defaults, on first use.
 */
import { createRequire } from 'node:module';
import type { AjvJsonSchemaValidator as SdkValidator } from '@modelcontextprotocol/sdk/validation/ajv-provider.js';
import type {
  JsonSchemaType,
  JsonSchemaValidator,
  jsonSchemaValidator,
} from '@modelcontextprotocol/sdk/validation/types.js';

// Resolved from this module's place in the package, so the SDK found is the one this package depends on.
const require = createRequire(import.meta.url);

/** The SDK's validator, built on the first schema to compile. */
export class AjvJsonSchemaValidator implements jsonSchemaValidator {
  #inner: SdkValidator | undefined;

  /** Compiles `schema` with the SDK's validator (loading it the first time). */
  getValidator<T>(schema: JsonSchemaType): JsonSchemaValidator<T> {
    if (this.#inner === undefined) {
      const sdk = require('@modelcontextprotocol/sdk/validation/ajv-provider.js') as {
        AjvJsonSchemaValidator: new () => SdkValidator;
      };
      this.#inner = new sdk.AjvJsonSchemaValidator();
    }
    return this.#inner.getValidator<T>(schema);
  }
}
