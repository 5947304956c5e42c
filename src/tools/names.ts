/**
 * Provider-safe tool names live in `model/tool-names.ts`: the tool server and the Agent both apply them.
 */
export * from '../model/tool-names.js';
