/**
 * The agy backend's second face: its stdout reader without a process (parse a line, normalize it into steps,
 * track a turn, classify its outcome), for tools that read recorded agy output: the cassette timeline, the
 * conformance checks and the simulator's replay. They read agy's lines through the transport's own code, never
 * a copy of it. A face of its own because `index.ts` loads the whole backend (the session runtime, the tool
 * server, the MCP SDK): the simulator's replay would load ~500 modules instead of ~80.
 */

export { CASSETTE_MISMATCH_MARKER } from './stream-json/cassette-mismatch.js';
export { DriftTracker } from './stream-json/drift.js';
export { deniedFromWire, usageFromWire } from './stream-json/normalize.js';
export { classifyTurn } from './stream-json/outcome.js';
export { isBadLine, parseEvent } from './stream-json/parse-line.js';
export { TurnTracker } from './stream-json/turn-tracker.js';
