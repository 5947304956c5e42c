/**
 * `AgentConfig.backend` and how the rest of `AgentConfig` maps onto an ACP agent: each field's description
 * (`connection/config-fields.ts`) says whether it means the same on ACP, is mapped, or is rejected (a
 * `ConfigError` naming the field and the backend).
 */
import { CONFIG_FIELDS, type ConfigFieldName } from '../config-fields.js';
import type { AcpFieldSupport } from '../field-support.js';

// The config types live in the seam (`../backend-config.ts`), where `BackendConfig` joins the backends.
export type { AcpBackendConfig, AcpPreset } from '../backend-config.js';

/** What the ACP backend does with an `AgentConfig` field. */
export type { AcpFieldSupport };

/**
 * Every `AgentConfig` field on the ACP backend, derived from each field's description (`acp`,
 * `connection/config-fields.ts`). `same`: it means what it means on agy. `mapped`: it becomes `how`.
 * `rejected`: setting it is a `ConfigError` naming the field and the backend (checked at construction).
 */
export const ACP_FIELD_SUPPORT = Object.fromEntries(
  Object.entries(CONFIG_FIELDS).map(([field, { acp }]) => [field, acp]),
) as { readonly [K in ConfigFieldName]: (typeof CONFIG_FIELDS)[K]['acp'] };
