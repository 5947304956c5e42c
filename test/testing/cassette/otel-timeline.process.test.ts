// `agy-sdk show` for a recorded OpenTelemetry trace: the SDK's own spans (src/telemetry/, names in
// attributes.ts) of a turn with two tools and a policy denial on the simulator, exported as OTLP/JSON by the
// OpenTelemetry SDK's own serializer, rendered by showFile: the turn with its status and usage, each tool with its
// arguments, and the denial with its policy.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { JsonTraceSerializer } from '@opentelemetry/otlp-transformer';
import { afterAll, describe, expect, it } from 'vitest';
import { CassetteError } from '../../../src/errors.js';
import { policy } from '../../../src/policy/index.js';
import { showFile } from '../../../src/testing/cassette/index.js';
import { otelTimeline } from '../../../src/testing/cassette/otel-timeline.js';
import { useSandboxAgents } from '../../helpers/agents.js';
import { otelKit } from '../../helpers/otel-kit.js';

const kit = otelKit();
afterAll(() => kit.shutdown());
const sb = useSandboxAgents();

describe('show: an OTLP/JSON trace', () => {
  it('renders the turn, its tools and the denial from the SDK’s spans', async () => {
    const agent = await sb.agentWith(
      {
        turns: [
          {
            actions: [
              { tool: { name: 'view_file', parameters: { AbsolutePath: '/a.txt' }, output: 'A' } },
              { tool: { name: 'run_command', parameters: { CommandLine: 'ls' }, output: 'x' } },
              { text: 'done' },
            ],
          },
        ],
      },
      {
        telemetry: { tracerProvider: kit.tracerProvider, captureContent: true },
        policies: [policy.deny('run_command', { name: 'no_shell' }), policy.allowAll()],
      },
    );
    const result = await (await agent.chat('look')).result();
    await agent.close();
    expect(result.status).toBe('denied');
    const body = JsonTraceSerializer.serializeRequest(kit.spans())!;
    const file = join(sb.box.root, 'trace.json');
    writeFileSync(file, Buffer.from(body));

    const timeline = otelTimeline(Buffer.from(body).toString('utf8'), file);
    expect(timeline.turns).toHaveLength(1);
    const turn = timeline.turns[0]!;
    expect(turn.status).toBe('denied');
    expect(turn.steps.filter((s) => s.tool).map((s) => s.tool!.name)).toEqual(['view_file', 'run_command']);
    expect(turn.steps.find((s) => s.tool?.name === 'run_command')?.denial?.by).toMatch(/policy|sdk/);

    const html = showFile(file);
    expect(html).toContain('data-status="denied"');
    expect(html).toContain('view_file');
    expect(html).toContain('class="denial"');
    expect(html).not.toMatch(/<script|https?:\/\//);
  });

  it('a file that is neither a cassette nor OTLP/JSON is a CassetteError', () => {
    const file = join(sb.box.root, 'junk.json');
    writeFileSync(file, '{"resourceSpans": 3}');
    expect(() => showFile(file)).toThrow(CassetteError);
    writeFileSync(file, 'hello');
    expect(() => showFile(file)).toThrow(/line: is not JSON/);
  });
});
