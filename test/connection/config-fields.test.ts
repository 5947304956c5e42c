/**
 * `AgentConfig` is described once (src/connection/config-fields.ts): every field has exactly one entry, and the
 * schema, the backends' field groups, the ACP support table and the docs tables are derived from it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, expectTypeOf, it } from 'vitest';
import type { AgentConfig } from '../../src/agent/config.js';
import { agentConfigSchema } from '../../src/agent/config-schema.js';
import { validateConfig } from '../../src/agent/validate-config.js';
import { ACP_FIELD_SUPPORT } from '../../src/connection/acp/config.js';
import {
  ACP_SETTINGS_FIELDS,
  type AcpConnectionOptions,
  type AcpSettings,
} from '../../src/connection/acp/options.js';
import type {
  AgyLaunchSettings,
  AgySessionSettings,
  AgyWatchdogSettings,
} from '../../src/connection/agy/agy-session.js';
import type { SessionRuntimeOptions } from '../../src/connection/agy/session/session-runtime.js';
import {
  AGY_LAUNCH_FIELDS,
  AGY_SESSION_FIELDS,
  AGY_WATCHDOG_FIELDS,
} from '../../src/connection/agy/settings.js';
import type { AgyProcessOptions } from '../../src/connection/agy/stream-json/process-options.js';
import { CONFIG_FIELDS, type ConfigFieldName } from '../../src/connection/config-fields.js';
import type { FieldsFeeding } from '../../src/connection/config-groups.js';
import { ConfigError } from '../../src/errors.js';

const root = join(import.meta.dirname, '../..');
const source = (rel: string) => readFileSync(join(root, rel), 'utf8');
const described = Object.keys(CONFIG_FIELDS);

describe('one description per AgentConfig field', () => {
  it('describes every AgentConfig field, and no other (checked by the compiler)', () => {
    expectTypeOf<Exclude<keyof AgentConfig, ConfigFieldName>>().toEqualTypeOf<never>();
    expectTypeOf<Exclude<ConfigFieldName, keyof AgentConfig>>().toEqualTypeOf<never>();
  });

  it('names each field once: one entry per field in the table, one field per AgentConfig member', () => {
    const entries = [...source('src/connection/config-fields.ts').matchAll(/^ {2}([A-Za-z]+): \{/gm)].map(
      (m) => m[1]!,
    );
    expect(entries).toEqual(described);
    expect(new Set(entries).size).toBe(entries.length);
    const config = source('src/agent/config.ts');
    const members = [
      ...config.slice(config.indexOf('export interface AgentConfig')).matchAll(/^ {2}(\w+)\?:/gm),
    ].map((m) => m[1]!);
    expect([...members].sort()).toEqual([...described].sort());
  });

  it('the zod schema is built from it: the same fields, in its order (the first bad one is named)', () => {
    expect(Object.keys(agentConfigSchema().shape)).toEqual(described);
    expect(() => validateConfig({ sandbox: 'yes', reminder: 1 } as never)).toThrow(
      expect.objectContaining({ field: 'sandbox' }),
    );
  });

  it('loads no module but its vocabulary: zod (a type import) loads on the first config check', () => {
    for (const file of ['src/connection/config-fields.ts', 'src/connection/field-support.ts']) {
      const values = [...source(file).matchAll(/^import (?!type )[^;]* from '([^']+)';/gm)].map((m) => m[1]);
      expect(
        values.every((v) => v === './field-support.js'),
        `${file}: ${values.join(', ')}`,
      ).toBe(true);
    }
  });
});

describe("the backends' groups are derived from it", () => {
  it("agy's session, launch and watchdog fields, and the ACP settings, are the fields that feed each", () => {
    const feeding = (group: string) =>
      described.filter((name) =>
        (CONFIG_FIELDS[name as ConfigFieldName].feeds as readonly string[]).includes(group),
      );
    expect(AGY_SESSION_FIELDS).toEqual(feeding('session'));
    expect(AGY_LAUNCH_FIELDS).toEqual(feeding('launch'));
    expect(AGY_WATCHDOG_FIELDS).toEqual(feeding('watchdog'));
    expect(ACP_SETTINGS_FIELDS).toEqual(feeding('acp'));
  });

  it('each group holds the fields it held when they were written by hand', () => {
    expect(new Set(AGY_SESSION_FIELDS)).toEqual(
      new Set([
        'dataDir',
        'systemInstructions',
        'notes',
        'toolTransport',
        'mcpServers',
        'hookPlacement',
        'hookTimeoutMs',
        'hookRelay',
        'isolation',
        'linkNativeAuth',
        'settingsOverrides',
        'skillsPaths',
        'subagents',
      ]),
    );
    expect(new Set(AGY_LAUNCH_FIELDS)).toEqual(
      new Set([
        'agyPath',
        'model',
        'effort',
        'mode',
        'sandbox',
        'conversationId',
        'resume',
        'extraArgs',
        'maxLineBytes',
        'onBadLine',
        'onStderr',
      ]),
    );
    expect(new Set(AGY_WATCHDOG_FIELDS)).toEqual(
      new Set(['startTimeoutMs', 'idleTimeoutMs', 'turnTimeoutMs', 'interruptGraceMs', 'closeGraceMs']),
    );
    expect(new Set(ACP_SETTINGS_FIELDS)).toEqual(
      new Set([
        'dataDir',
        'isolation',
        'mcpServers',
        'conversationId',
        'model',
        'startTimeoutMs',
        'idleTimeoutMs',
        'turnTimeoutMs',
        'interruptGraceMs',
        'closeGraceMs',
        'maxLineBytes',
        'onStderr',
      ]),
    );
  });

  it('each group is exactly what its backend consumes (checked by the compiler)', () => {
    // The AgentConfig fields a backend's options take by name are its group's, but for those the Agent hands
    // over itself (resolved, merged or wrapped first).
    type ByAgent = 'env' | 'cwd' | 'workspaces' | 'tools' | 'logger' | 'hooks';
    type Taken<Options> = Exclude<Extract<keyof Options, keyof AgentConfig>, ByAgent>;
    expectTypeOf<Taken<SessionRuntimeOptions>>().toEqualTypeOf<FieldsFeeding<'session'>>();
    expectTypeOf<Taken<AgyProcessOptions>>().toEqualTypeOf<
      FieldsFeeding<'launch'> | FieldsFeeding<'watchdog'>
    >();
    expectTypeOf<keyof AgySessionSettings>().toEqualTypeOf<FieldsFeeding<'session'>>();
    expectTypeOf<keyof AgyLaunchSettings>().toEqualTypeOf<FieldsFeeding<'launch'>>();
    expectTypeOf<keyof AgyWatchdogSettings>().toEqualTypeOf<FieldsFeeding<'watchdog'>>();
    // ACP's settingsOverrides is validation's merge of the user's over the Python fields' (as systemPrompt is
    // derived from systemInstructions), not the user's value forwarded.
    expectTypeOf<Exclude<Taken<AcpConnectionOptions>, 'settingsOverrides'>>().toEqualTypeOf<
      FieldsFeeding<'acp'>
    >();
    expectTypeOf<Exclude<keyof AcpSettings, 'settingsOverrides' | 'systemPrompt'>>().toEqualTypeOf<
      FieldsFeeding<'acp'>
    >();
  });

  it('validation forwards a field in the groups its description names, and only there', () => {
    const v = validateConfig({ model: 'm', startTimeoutMs: 1000, notes: 'n' });
    expect(v.launch).toEqual({ model: 'm' });
    expect(v.watchdog).toEqual({ startTimeoutMs: 1000 });
    expect(v.session).toMatchObject({ notes: 'n' });
    expect(v.acp).toEqual({ model: 'm', startTimeoutMs: 1000 });
  });
});

describe('support per backend is derived from it', () => {
  it("ACP_FIELD_SUPPORT is each field's acp entry", () => {
    expect(Object.keys(ACP_FIELD_SUPPORT)).toEqual(described);
    for (const name of described as ConfigFieldName[])
      expect(ACP_FIELD_SUPPORT[name]).toBe(CONFIG_FIELDS[name].acp);
  });

  it('a field the description rejects on ACP is a ConfigError naming it and the reason', () => {
    const err = (() => {
      try {
        validateConfig({ backend: { kind: 'acp', preset: 'gemini-cli' }, hookRelay: 'node' });
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as ConfigError).field).toBe('hookRelay');
    const why = CONFIG_FIELDS.hookRelay.acp.why;
    expect((err as ConfigError).message).toContain(why);
  });

  it('docs/backends.md has one ACP row per field and one row per Python setting, from the description', () => {
    const doc = source('docs/backends.md');
    const section = (title: string) => {
      const from = doc.indexOf(title);
      const to = doc.indexOf('\n### ', from + 1);
      return doc.slice(from, to === -1 ? undefined : to);
    };
    const rows = (text: string) => [...text.matchAll(/^\| `([^`]+)` \|/gm)].map((m) => m[1]!);
    expect(rows(section('### `AgentConfig` on the ACP backend'))).toEqual(
      [...described].sort((a, b) => a.localeCompare(b)),
    );
    const python = Object.values(CONFIG_FIELDS).flatMap((f) => Object.keys('python' in f ? f.python : {}));
    expect(rows(section('### Python SDK fields per backend'))).toEqual(python);
  });
});
