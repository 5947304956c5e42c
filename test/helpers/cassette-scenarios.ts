/** The scenario set of the cassette round trip and the conformance check's simulator runs. */
import type { Scenario } from '../../src/testing/simulator/scenario.js';

/** Every scenario, with the prompts of its turns. */
export const ROUND_TRIP_SCENARIOS: Record<string, { scenario: Scenario; prompts: string[] }> = {
  text: { scenario: { turns: [{ actions: [{ text: 'Hello there!' }] }] }, prompts: ['hi'] },
  'two tools': {
    scenario: {
      turns: [
        {
          actions: [
            { tool: { name: 'view_file', parameters: { AbsolutePath: '/x' }, output: 'contents' } },
            { tool: { name: 'list_dir', parameters: { DirectoryPath: '/' }, output: 'a b' } },
            { text: 'two tools ran' },
          ],
        },
      ],
    },
    prompts: ['look'],
  },
  'soft denial': {
    scenario: {
      turns: [
        {
          actions: [
            { deny: { action: 'run_command', tool: 'run_command', parameters: { CommandLine: 'rm x' } } },
            { text: 'denied' },
          ],
        },
      ],
    },
    prompts: ['rm'],
  },
  'policy denial and own tool': {
    scenario: {
      turns: [
        {
          actions: [
            { tool: { name: 'run_command', parameters: { CommandLine: 'ls' }, output: 'x' } },
            { mcpTool: { server: 'agy-sdk_tools', tool: 'add', arguments: { a: 2, b: 5 } } },
            { text: 'sum done' },
          ],
        },
      ],
    },
    prompts: ['add'],
  },
  'model error': { scenario: { turns: [{ actions: [{ text: 'x', error: true }] }] }, prompts: ['fail'] },
  'rate limit retry': {
    scenario: { turns: [{ actions: [{ rateLimit: { retries: 1 } }, { text: 'fine now' }] }] },
    prompts: ['retry'],
  },
  quota: { scenario: { turns: [{ actions: [], end: { quota: true } }] }, prompts: ['q'] },
  'print timeout': { scenario: { turns: [{ actions: [], end: { printTimeout: true } }] }, prompts: ['t'] },
  subagent: {
    scenario: {
      turns: [
        {
          actions: [
            { subagent: { prompt: 'research', actions: [{ text: 'sub says hi' }] } },
            { text: 'main done' },
          ],
        },
      ],
    },
    prompts: ['delegate'],
  },
  'notices and checkpoint': {
    scenario: {
      turns: [
        { actions: [{ systemMessage: 'note' }, { checkpoint: true }, { unknownStep: true }, { text: 'ok' }] },
      ],
    },
    prompts: ['n'],
  },
  'three turns': {
    scenario: {
      turns: [
        { actions: [{ text: 'one' }] },
        { actions: [{ text: 'two' }] },
        { actions: [{ text: 'three' }] },
      ],
    },
    prompts: ['1', '2', '3'],
  },
};

/** One version per profile the simulator imitates (src/testing/simulator/profile.ts: <1.1.9, 1.1.9, 1.2.x, 1.2.17+). */
export const SIM_VERSION_PROFILES = ['1.1.8', '1.1.9', '1.2.7', '1.2.17', '1.3.1'];
