/** Cassettes: record a session, sanitize it, check its format, replay it, import a capture, show it. */

export {
  type AcpRecord,
  CASSETTE_FORMAT,
  CASSETTE_VERSION,
  type Cassette,
  type CassetteAgy,
  type CassetteHeader,
  type CassetteRecord,
  type CloseRecord,
  type ExitRecord,
  type HookRecord,
  type McpRecord,
  parseCassette,
  readCassette,
  type SignalRecord,
  type SpawnRecord,
  type StderrRecord,
  type StdinRecord,
  type StdoutRecord,
  serializeCassette,
} from '../../cassette/format.js';
export type { RecordConfig } from '../../cassette/recorder.js';
export { CassetteRecorder } from '../../cassette/recorder.js';
export { type RedactPattern, type SanitizeContext, Sanitizer } from '../../cassette/sanitize.js';
export {
  checkConformance,
  type FactResult,
  loadWireFacts,
  PROBES,
  type Probe,
  type WireFact,
  type WireFactCatalogue,
} from './conformance.js';
export {
  ANY_PROMPT,
  type ImportOptions,
  importAcp,
  importCapture,
  importHookFolder,
  importScript,
  importStdout,
} from './import.js';
export { type ReplayConfig, type ReplayOptions, replayCassette } from './replay-config.js';
export { cassetteHtml, showFile } from './show.js';
export {
  buildTimeline,
  type Timeline,
  type TimelineDenial,
  type TimelineExit,
  type TimelineProcess,
  type TimelineStep,
  type TimelineTool,
  type TimelineTurn,
} from './timeline.js';
