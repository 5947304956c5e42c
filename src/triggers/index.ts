/** Triggers: background tasks that push messages into the conversation. */
export { type EveryOptions, every } from './every.js';
export type { EveryInterval, IntervalUnit } from './interval.js';
export { type OnFileChangeOptions, onFileChange } from './on-file-change.js';
export { TriggerRunner, type TriggerRunnerOptions } from './runner.js';
export type {
  FileChange,
  FileChangeKind,
  Trigger,
  TriggerContext,
  TriggerFn,
  TriggerObject,
} from './types.js';
