// A provider: agy on an OpenAI-compatible model, through the gateway (`agy-sdk/gateway`). agy speaks only
// Gemini; with `modelProvider: "gemini"` in its settings and GOOGLE_GEMINI_BASE_URL it sends its model calls
// to any Gemini-compatible endpoint. The gateway is that endpoint: it translates each streamGenerateContent
// call to Chat Completions (or Responses, or Anthropic Messages) and streams the answer back.
//
// Offline (default) the upstream is a tiny local stand-in. To use a real provider, set all of:
//   OPENAI_BASE_URL  e.g. https://api.openai.com/v1 (the vendor SDK's convention: OpenAI kinds include /v1)
//   OPENAI_API_KEY   stays in this process: agy only ever sees the gateway's per-run token
//   OPENAI_MODEL     e.g. gpt-4o-mini (every request goes to it; `modelMap` can route per Gemini model)
// Run after `npm run build`: node examples/15-provider-openai-compatible.mjs
import { createServer } from 'node:http';
import { Agent } from 'agy-sdk';
import { simulatorPath } from 'agy-sdk/testing';

const real = Boolean(process.env.OPENAI_BASE_URL && process.env.OPENAI_API_KEY);
let standIn;
let upstream;
if (real) {
  upstream = { baseUrl: process.env.OPENAI_BASE_URL, apiKey: process.env.OPENAI_API_KEY };
} else {
  // The stand-in: answers every Chat Completions request with a short streamed reply and its usage.
  standIn = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const chunk = (choices, extra = {}) =>
        `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 0, model: 'stand-in', choices, ...extra })}\n\n`;
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      for (const word of ['Hello ', 'from ', 'an ', 'OpenAI-compatible ', 'model.'])
        res.write(chunk([{ index: 0, delta: { content: word }, finish_reason: null }]));
      res.write(chunk([{ index: 0, delta: {}, finish_reason: 'stop' }]));
      res.write(chunk([], { usage: { prompt_tokens: 50, completion_tokens: 6, total_tokens: 56 } }));
      res.end('data: [DONE]\n\n');
    });
  });
  await new Promise((ok) => standIn.listen(0, '127.0.0.1', ok));
  upstream = { baseUrl: `http://127.0.0.1:${standIn.address().port}/v1`, apiKey: 'sk-stand-in' };
}

// Provider mode: the Agent starts an in-process gateway on 127.0.0.1 pinned to `model`, runs agy under a
// private HOME with `modelProvider: "gemini"`, and hands agy the gateway's URL and per-run token. (The gateway
// alone is `createGateway` from 'agy-sdk/gateway', e.g. for an agy you start by hand.)
const agent = new Agent({
  agyPath: process.env.AGY_PATH ?? simulatorPath(),
  provider: { kind: 'openai-chat', ...upstream, model: process.env.OPENAI_MODEL ?? 'stand-in' },
});
try {
  console.log(`upstream: ${real ? process.env.OPENAI_BASE_URL : 'local stand-in'} via the gateway`);
  const response = await agent.chat('Say hello.');
  process.stdout.write('agent: ');
  for await (const delta of response) process.stdout.write(delta);
  process.stdout.write('\n');
  const result = await response.result();
  // What the provider bills for this turn, next to agy's own figures in result.usage.
  console.log(`upstream tokens: ${result.providerUsage?.totalTokens ?? 'unknown'}`);
  console.log(`status: ${result.status}`);
} finally {
  await agent.close(); // also stops the gateway
  standIn?.close();
}
