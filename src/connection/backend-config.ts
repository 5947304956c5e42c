/**
 * `AgentConfig.backend`: which backend an Agent runs on. Each backend's own config lives with it
 * (`acp/config.ts`); this union is the one place both meet.
 */
import type { AcpBackendConfig } from './acp/config.js';

/** The default backend: agy over stream-json. */
export interface AgyBackendConfig {
  /** agy over stream-json (the default). */
  kind: 'agy';
}

/** Which backend an Agent runs on. */
export type BackendConfig = AgyBackendConfig | AcpBackendConfig;
