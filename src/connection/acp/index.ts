/**
 * The ACP backend's face to the rest of the SDK: the Agent imports ACP things from here only.
 */
export { AcpConnection } from './acp-connection.js';
export { capabilitiesOf } from './capabilities.js';
export {
  ACP_FIELD_SUPPORT,
  type AcpBackendConfig,
  type AcpFieldSupport,
  type AcpPreset,
} from './config.js';
export { type AcpFactoryOptions, createAcpConnection } from './factory.js';
export { GEMINI_CLI_CAPABILITIES } from './gemini-cli-capabilities.js';
export {
  ACP_SETTINGS_FIELDS,
  type AcpConnectionOptions,
  type AcpSettings,
  DEFAULT_ACP_IDLE_TIMEOUT_MS,
  DEFAULT_ACP_PERMISSION_TIMEOUT_MS,
  DEFAULT_ACP_START_TIMEOUT_MS,
} from './options.js';
export { acpCommandLine, geminiCliSettings, PRESET_COMMANDS } from './presets.js';
