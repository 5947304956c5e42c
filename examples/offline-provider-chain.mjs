// The full offline provider chain: Agent → agy simulator → Gemini-compatible gateway → an OpenAI-compatible
// upstream (a tiny local stand-in here, so nothing leaves the machine). The simulator takes its model turns
// from GOOGLE_GEMINI_BASE_URL when agy's settings say modelProvider "gemini", as real agy does; the gateway
// translates Gemini's streamGenerateContent to Chat Completions and streams the answer back token by token.
//
// Run after `npm run build`: node examples/offline-provider-chain.mjs
// (`new Agent({ provider: { kind, baseUrl, apiKey, model } })` does the gateway and settings steps for you; they
// are spelled out here to show the chain.)
import { createServer } from 'node:http';
import { Agent } from 'agy-sdk';
import { createGateway } from 'agy-sdk/gateway';
import { simulatorPath } from 'agy-sdk/testing';

const UPSTREAM_KEY = 'sk-offline-demo-key';

/** One Chat Completions chunk as an SSE frame. */
function frame(delta, finish = null, usage) {
  const chunk = { id: 'chatcmpl-demo', object: 'chat.completion.chunk', created: 0, model: 'demo-model' };
  chunk.choices = delta === undefined ? [] : [{ index: 0, delta, finish_reason: finish }];
  if (usage !== undefined) chunk.usage = usage;
  return `data: ${JSON.stringify(chunk)}\n\n`;
}

// The stand-in upstream: first it asks for the workspace listing, then it answers from the tool result.
const upstream = createServer((req, res) => {
  let raw = '';
  req.on('data', (d) => {
    raw += d;
  });
  req.on('end', async () => {
    if (req.headers.authorization !== `Bearer ${UPSTREAM_KEY}`) {
      res.writeHead(401, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          error: { message: 'bad key', type: 'invalid_request_error', code: 'invalid_api_key' },
        }),
      );
      return;
    }
    const body = JSON.parse(raw);
    const toolMessage = body.messages.findLast((m) => m.role === 'tool');
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const usage = { prompt_tokens: 120, completion_tokens: 18, total_tokens: 138 };
    if (toolMessage === undefined) {
      const args = JSON.stringify({ DirectoryPath: process.cwd() });
      res.write(
        frame({
          role: 'assistant',
          tool_calls: [
            { index: 0, id: 'call_demo_1', type: 'function', function: { name: 'list_dir', arguments: '' } },
          ],
        }),
      );
      res.write(frame({ tool_calls: [{ index: 0, function: { arguments: args } }] }));
      res.write(frame({}, 'tool_calls'));
    } else {
      const count = String(toolMessage.content).split('\n').filter(Boolean).length;
      for (const word of `This directory has about ${count} entries; the listing came through the tool call.`.split(
        /(?= )/,
      )) {
        res.write(frame({ content: word }));
        await new Promise((ok) => setTimeout(ok, 30));
      }
      res.write(frame({}, 'stop'));
    }
    res.write(frame(undefined, null, usage));
    res.end('data: [DONE]\n\n');
  });
});
await new Promise((ok) => upstream.listen(0, '127.0.0.1', ok));
const upstreamUrl = `http://127.0.0.1:${upstream.address().port}/v1`;

const gateway = await createGateway({
  upstream: { kind: 'openai-chat', baseUrl: upstreamUrl, apiKey: UPSTREAM_KEY },
  modelMap: { '*': 'demo-model' },
});
const agent = new Agent({
  agyPath: simulatorPath(),
  workspaces: [process.cwd()],
  isolation: 'shadow-home',
  settingsOverrides: { modelProvider: 'gemini' },
  // agy sees only the gateway and its per-run token, never the upstream key.
  env: { GOOGLE_GEMINI_BASE_URL: gateway.url, GEMINI_API_KEY: gateway.token },
});
try {
  await agent.start();
  const response = await agent.chat('What is in this directory?');
  for await (const call of response.toolCalls())
    console.log(`  → tool ${call.name} ${JSON.stringify(call.args)}`);
  process.stdout.write('agent: ');
  for await (const delta of response) process.stdout.write(delta);
  process.stdout.write('\n');
  const result = await response.result();
  console.log(`turn: ${result.status} · ${result.usage?.totalTokens ?? '?'} tokens`);
  if (result.status !== 'success') process.exitCode = 1;
} finally {
  await agent.close();
  await gateway.close();
  upstream.close();
}
