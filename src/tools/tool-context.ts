/**
 * A tool's context lives in `model/tool-context.ts`: the tool server builds it below `tools/`.
 */
export * from '../model/tool-context.js';
