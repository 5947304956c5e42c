// A chat page over AG-UI: `createAgUiHandler` from `agy-sdk/ag-ui` serves an agy agent as an AG-UI endpoint,
// and a minimal page (support/ag-ui-chat-page.html, plain JavaScript, no bundler) streams its runs: text as it
// arrives, tool calls and their results, and approvals. The agent's `run_command` needs a human's approval
// (the default policy asks through the AG-UI client): the run ends with an AG-UI interrupt, the page shows
// Approve/Deny, and its answer resumes the turn.
//
// `node examples/18-ag-ui-chat.mjs --serve` keeps serving: open the printed URL (127.0.0.1 only, with a random
// token in the path) and chat; Ctrl-C ends it and every agy process. Without `--serve` it plays the page's part
// once itself (the same requests the page sends) and exits. Needs `@ag-ui/core` and `@ag-ui/encoder`.
// Run after `npm run build`: node examples/18-ag-ui-chat.mjs [--serve]
import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import { dirname, join } from 'node:path';
import { createAgUiHandler } from 'agy-sdk/ag-ui';
import { simulatorPath, writeScenario } from 'agy-sdk/testing';

const offline = !process.env.AGY_PATH;
// Offline, the simulated model looks at the workspace with `ls` (which needs approval), then answers.
const scenario = offline
  ? await writeScenario({
      turns: [
        {
          actions: [
            { text: 'Let me look at the workspace.', chunks: 3 },
            {
              tool: {
                name: 'run_command',
                parameters: { CommandLine: 'ls' },
                output: 'README.md\npackage.json',
              },
            },
            { text: 'The workspace holds README.md and package.json.', chunks: 3 },
          ],
        },
      ],
    })
  : undefined;

const handler = await createAgUiHandler({
  agent: {
    agyPath: process.env.AGY_PATH ?? simulatorPath(),
    env: scenario ? { AGY_SIM_SCENARIO: scenario } : {},
    askUserTimeoutMs: 120_000,
  },
});

// The page and the endpoint live under a random path: only whoever was given the URL can use them.
const token = randomBytes(16).toString('hex');
const page = readFileSync(join(import.meta.dirname, 'support/ag-ui-chat-page.html'), 'utf8');
const server = createServer((req, res) => {
  if (req.method === 'GET' && req.url === `/${token}/`) {
    const nonce = randomBytes(16).toString('base64');
    res.writeHead(200, {
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy': `default-src 'self'; script-src 'nonce-${nonce}'; style-src 'unsafe-inline'; img-src data:`,
    });
    res.end(page.replace('__NONCE__', nonce));
  } else if (req.url === `/${token}/agent`) handler(req, res);
  else res.writeHead(404).end();
});
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const url = `http://127.0.0.1:${server.address().port}/${token}/`;
console.log(`page: ${url}`);

async function shutdown() {
  await handler.close(); // ends any turn still running or waiting for an approval
  await new Promise((resolve) => server.close(resolve));
  if (scenario) await rm(dirname(scenario), { recursive: true, force: true });
}

if (process.argv.includes('--serve')) {
  console.log('serving; Ctrl-C to stop');
  for (const signal of ['SIGINT', 'SIGTERM'])
    process.once(signal, () => shutdown().then(() => process.exit(0)));
} else {
  try {
    await playThePage();
  } finally {
    await shutdown();
  }
}

/** What the page does, from Node: one run with a question, the approval answered yes, the resumed run. */
async function playThePage() {
  const threadId = randomUUID();
  const messages = [{ id: randomUUID(), role: 'user', content: 'What is in this workspace?' }];
  console.log(`you: ${messages[0].content}`);
  let end = await run({ threadId, messages });
  while (end?.outcome?.type === 'interrupt') {
    const resume = end.outcome.interrupts.map((interrupt) => {
      console.log(`  ? ${interrupt.message} → approved`);
      return { interruptId: interrupt.id, status: 'resolved', payload: { approved: true } };
    });
    end = await run({ threadId, messages, resume });
  }
  console.log(`status: ${end?.result?.status ?? end?.code ?? 'unknown'}`);
}

/** One AG-UI run: POST a RunAgentInput, print its events; returns the last one (RUN_FINISHED or RUN_ERROR). */
async function run(input) {
  const body = { runId: randomUUID(), tools: [], context: [], state: {}, forwardedProps: {}, ...input };
  const response = await fetch(`${url}agent`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`HTTP ${response.status}: ${await response.text()}`);
  let last;
  let buffer = '';
  for await (const chunk of response.body.pipeThrough(new TextDecoderStream())) {
    buffer += chunk;
    for (let cut = buffer.indexOf('\n\n'); cut >= 0; cut = buffer.indexOf('\n\n')) {
      const data = buffer.slice(0, cut).replace(/^data: ?/gm, '');
      buffer = buffer.slice(cut + 2);
      if (!data) continue;
      last = JSON.parse(data);
      show(last);
    }
  }
  return last;
}

function show(event) {
  if (event.type === 'TEXT_MESSAGE_START') process.stdout.write('agent: ');
  else if (event.type === 'TEXT_MESSAGE_CONTENT') process.stdout.write(event.delta);
  else if (event.type === 'TEXT_MESSAGE_END') process.stdout.write('\n');
  else if (event.type === 'TOOL_CALL_START') process.stdout.write(`  → tool ${event.toolCallName}`);
  else if (event.type === 'TOOL_CALL_ARGS') process.stdout.write(` ${event.delta}\n`);
  else if (event.type === 'TOOL_CALL_RESULT') console.log(`  ✓ ${event.content.replaceAll('\n', ', ')}`);
  else if (event.type === 'RUN_ERROR') console.log(`run error: ${event.message}`);
}
