/**
 * The JSON Schema validator of the simulator's bundled MCP client (scripts/postbuild.mjs puts it in place of the
 * MCP SDK's `validation/ajv-provider.js`): the SDK's own `AjvJsonSchemaValidator`, loaded from node_modules the
 * first time a schema is compiled instead of when the client is.
 *
 * The SDK's `Client` builds an Ajv instance with every format in its constructor, and the bundle evaluated
 * ajv, ajv-formats and fast-uri as it loaded: about 30 ms of CPU in every simulator that connects an MCP server
 * (all of them with own tools), for validators only a tool with an `outputSchema` ever uses (the client compiles
 * one per such tool when it lists them, and checks each call's `structuredContent` with it). Validation itself
 * is the SDK's, unchanged: the same class, built with the same defaults, on first use.
 */
import { createRequire } from 'node:module';
import type { AjvJsonSchemaValidator as SdkValidator } from '@modelcontextprotocol/sdk/validation/ajv-provider.js';
import type {
  JsonSchemaType,
  JsonSchemaValidator,
  jsonSchemaValidator,
} from '@modelcontextprotocol/sdk/validation/types.js';

// Resolved from the bundle's own place in the package, so the SDK found is the one this package depends on.
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
