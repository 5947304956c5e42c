// Structured output: give a zod schema (or a JSON Schema) and get a validated, typed value back. agy is run
// with --json-schema; a missing or mismatched value is a typed failure, never an empty success.
// Run after `npm run build`: node examples/07-structured-output.mjs
import { rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { Agent } from 'agy-sdk';
import { simulatorPath, writeScenario } from 'agy-sdk/testing';
import { z } from 'zod';

const Summary = z.object({
  title: z.string(),
  files: z.number().int(),
  languages: z.array(z.string()),
});

const scenario = await writeScenario({
  turns: [
    {
      actions: [{ text: 'Here is the summary.' }],
      end: { structuredOutput: { title: 'agy-sdk', files: 120, languages: ['TypeScript', 'Markdown'] } },
    },
  ],
});
const agent = new Agent({
  agyPath: process.env.AGY_PATH ?? simulatorPath(),
  env: process.env.AGY_PATH ? {} : { AGY_SIM_SCENARIO: scenario },
  workspaces: [process.cwd()],
  responseSchema: Summary,
});
try {
  const response = await agent.chat('Summarize this repository.');
  // Rejects with a TurnError (status `error`, cause StructuredOutputError) when the value does not validate.
  const summary = await response.structuredOutput();
  console.log(`title: ${summary.title}; files: ${summary.files}; languages: ${summary.languages.join(', ')}`);
  console.log(`status: ${(await response.result()).status}`);
} finally {
  await agent.close();
  await rm(dirname(scenario), { recursive: true, force: true }); // writeScenario made a private temp dir
}
