/**
 * The backend groups, derived from the one description of `AgentConfig` (`config-fields.ts`): the fields each
 * group is forwarded with (each field's `feeds`), as a list for picking them and as a type for the backend's
 * options. A backend's group is never written as a list of its own.
 */
import { CONFIG_FIELDS, type ConfigFieldName } from './config-fields.js';
import type { ConfigGroup } from './field-support.js';

/** The fields forwarded in `group`, as a type. */
export type FieldsFeeding<G extends ConfigGroup> = {
  [K in ConfigFieldName]: G extends (typeof CONFIG_FIELDS)[K]['feeds'][number] ? K : never;
}[ConfigFieldName];

/** The fields forwarded in `group`, in the table's order. */
export function fieldsFeeding<G extends ConfigGroup>(group: G): readonly FieldsFeeding<G>[] {
  return Object.entries(CONFIG_FIELDS)
    .filter(([, field]) => (field.feeds as readonly ConfigGroup[]).includes(group))
    .map(([name]) => name as FieldsFeeding<G>);
}
