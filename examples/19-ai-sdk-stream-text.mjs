// agy in the Vercel AI SDK: `agy()` from `agy-sdk/ai-sdk` is a language model for `streamText`,
// `generateText` and `generateObject` (`ai` 7). The settings are the Agent's (policies, tools, hooks, …).
// agy's own tool calls arrive in `fullStream` as provider-executed tool calls and results; the second call
// continues the same agy conversation from `response.messages` (agy gets only the new message).
// Needs `ai` (npm install ai). Run after `npm run build`: node examples/19-ai-sdk-stream-text.mjs
import { rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { policy } from 'agy-sdk';
import { agy } from 'agy-sdk/ai-sdk';
import { simulatorPath, writeScenario } from 'agy-sdk/testing';
import { generateText, streamText } from 'ai';

const scenario = process.env.AGY_PATH
  ? undefined
  : await writeScenario({
      turns: [
        {
          actions: [
            { text: 'Let me list the files.', chunks: 3 },
            { tool: { name: 'list_dir', parameters: { DirectoryPath: '.' }, output: 'README.md\nsrc/' } },
            { text: 'There is a README.md and a src/ folder.', chunks: 3 },
          ],
        },
      ],
    });

const model = agy('default', {
  agyPath: process.env.AGY_PATH ?? simulatorPath(),
  env: scenario ? { AGY_SIM_SCENARIO: scenario } : {},
  policies: [policy.allowAll()],
});

try {
  const prompt = 'What is in this workspace?';
  const result = streamText({ model, prompt });
  for await (const part of result.fullStream) {
    if (part.type === 'text-start') process.stdout.write('agent: ');
    else if (part.type === 'text-delta') process.stdout.write(part.text);
    else if (part.type === 'text-end') process.stdout.write('\n');
    else if (part.type === 'tool-call') console.log(`  → ${part.toolName} ${JSON.stringify(part.input)}`);
    else if (part.type === 'tool-result') console.log(`  ✓ ${String(part.output).replaceAll('\n', ', ')}`);
    else if (part.type === 'finish')
      console.log(
        `finish: ${part.finishReason} (${part.rawFinishReason}); tokens in ${part.totalUsage.inputTokens}, out ${part.totalUsage.outputTokens}`,
      );
  }
  const conversationId = (await result.providerMetadata)?.agy?.conversationId;
  console.log(`conversation: ${conversationId}`);

  // The next call with the history: the same agy conversation goes on.
  const messages = [{ role: 'user', content: prompt }, ...(await result.response).messages];
  const next = await generateText({ model, messages: [...messages, { role: 'user', content: 'Thanks!' }] });
  console.log(`agent: ${next.text}`);
  console.log(`same conversation: ${next.providerMetadata?.agy?.conversationId === conversationId}`);
  console.log(`status: ${next.providerMetadata?.agy?.status}`);
} finally {
  await model.close();
  if (scenario) await rm(dirname(scenario), { recursive: true, force: true });
}
