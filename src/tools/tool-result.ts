/**
 * Tool results and their conversion live in `model/tool-result.ts`: the tool server converts below `tools/`.
 */
export * from '../model/tool-result.js';
