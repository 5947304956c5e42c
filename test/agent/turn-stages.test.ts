/** The turn pipeline: each named stage alone, and their composition in order. */
import { mkdtemp, readFile, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ControlPlane } from '../../src/agent/control-plane.js';
import {
  agentStages,
  budgetStartStage,
  budgetStepStage,
  commandStage,
  controlStepStage,
  finishStage,
  materializeStage,
  pendingSteersStage,
  preTurnStage,
  reminderStage,
  transportWarningStage,
  turnSchemaStage,
} from '../../src/agent/turn-stages.js';
import type { Connection } from '../../src/connection/connection.js';
import { Turn } from '../../src/connection/connection.js';
import { AttachmentFiles } from '../../src/content/attachment-files.js';
import { Image } from '../../src/content/content.js';
import { SlashCommand } from '../../src/content/slash-command.js';
import { BudgetTracker } from '../../src/conversation/budget.js';
import { composeStages } from '../../src/conversation/stages.js';
import { UsageLedger } from '../../src/conversation/usage-ledger.js';
import { TurnDeniedError } from '../../src/errors.js';
import { ResponseSchema } from '../../src/model/response-schema.js';
import type { Step } from '../../src/model/step.js';
import type { TurnResult } from '../../src/model/turn-result.js';
import { spyLogger } from '../helpers/hooks.js';

const step = (over: Partial<Step> = {}): Step => ({
  conversationId: 'c',
  stepIndex: 0,
  state: 'DONE',
  type: 'agent_response',
  raw: {},
  ...over,
});

describe('prepare stages', () => {
  it('run in order on one draft: materialize, pending steers, preTurn, budget, reminder', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'agy-sdk-stages-'));
    try {
      const seen: string[] = [];
      let budgetStarted = 0;
      const attachments = new AttachmentFiles();
      const { prepare } = composeStages([
        materializeStage(async () => dir, attachments),
        pendingSteersStage(() => ['steer first']),
        preTurnStage(async (text) => {
          seen.push(text);
          return { allow: true };
        }),
        budgetStartStage({ beginTurn: () => budgetStarted++ }),
        reminderStage('be brief'),
      ]);
      const png = new Image({ data: new Uint8Array([1, 2, 3]), mimeType: 'image/png', name: 'x.png' });
      const out = await prepare(new Turn(['look', png]));
      expect(out.text[0]).toBe('<system-reminder>\nbe brief\n</system-reminder>');
      expect(out.text[1]).toBe('steer first');
      expect(out.text[2]).toBe('look');
      const file = /at (\S+x\.png)/.exec(out.text[3] ?? '')?.[1];
      expect(file && (await readFile(file))).toEqual(Buffer.from([1, 2, 3]));
      // Recorded by real path before the prompt goes out, so the workspace confinement admits it to reads.
      expect(attachments.size).toBe(1);
      expect(attachments.has(await realpath(file as string))).toBe(true);
      // preTurn saw the steers and the prompt, not the reminder (it is added after the gate).
      expect(seen).toEqual([`steer first\nlook\n${out.text[3]}`]);
      expect(budgetStarted).toBe(1);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('a preTurn deny throws TurnDeniedError and later stages do not run', async () => {
    let later = false;
    const { prepare } = composeStages([
      preTurnStage(async () => ({ allow: false, message: 'no' })),
      {
        name: 'later',
        prepare: () => {
          later = true;
        },
      },
    ]);
    const turn = new Turn(['x']);
    turn.text = ['x'];
    await expect(prepare(turn)).rejects.toThrow(TurnDeniedError);
    expect(later).toBe(false);
  });
});

describe('step stages', () => {
  it('every stage sees every step; the budget stage stops the turn past a limit', () => {
    const seen: number[] = [];
    const logger = spyLogger();
    const stages = composeStages([
      controlStepStage((s) => seen.push(s.stepIndex)),
      transportWarningStage(logger),
      budgetStepStage(new BudgetTracker({ maxModelCalls: 1 })),
      { name: 'after-budget', step: (s) => void seen.push(-s.stepIndex) },
    ]);
    const turn = new Turn([]);
    const onStep = (s: Step) => stages.step(s, turn);
    expect(onStep(step({ stepIndex: 1 }))).toBeUndefined();
    const stop = onStep(step({ stepIndex: 2 }));
    expect(stop).toMatchObject({ status: 'budget_exceeded', budget: 'maxModelCalls' });
    expect(seen).toEqual([1, -1, 2, -2]);
  });
});

describe('finish stages', () => {
  it('run in order, each on the previous result', async () => {
    const { finish } = composeStages([
      finishStage('a', (r) => ({ ...r, text: `${r.text}a` })),
      finishStage('b', async (r) => ({ ...r, text: `${r.text}b` })),
    ]);
    expect((await finish({ text: '' } as TurnResult, new Turn([]))).text).toBe('ab');
  });
});

describe('the agent’s stage list', () => {
  it('a slash command turn is not prepared further: no steers, gate or reminder, and no schema travels', async () => {
    let gated = false;
    const { prepare } = composeStages([
      commandStage(),
      pendingSteersStage(() => ['steer']),
      preTurnStage(async () => {
        gated = true;
        return { allow: true };
      }),
      reminderStage('be brief'),
      turnSchemaStage(undefined),
    ]);
    const schema = ResponseSchema.from({ type: 'object' });
    const turn = await prepare(new Turn([new SlashCommand('/effort high')], { schema }));
    expect(turn.command).toEqual({ name: 'effort', args: 'high' });
    expect(turn.text).toEqual([]);
    expect(turn.jsonSchema).toBeUndefined();
    expect(gated).toBe(false);
  });

  it('only a schema other than the agent’s travels with the turn', async () => {
    const agents = ResponseSchema.from({ type: 'object', required: ['a'] });
    const { prepare } = composeStages([turnSchemaStage(agents)]);
    const same = await prepare(
      new Turn(['x'], { schema: ResponseSchema.from({ type: 'object', required: ['a'] }) }),
    );
    expect(same.jsonSchema).toBeUndefined();
    const other = await prepare(
      new Turn(['x'], { schema: ResponseSchema.from({ type: 'object', required: ['b'] }) }),
    );
    expect(other.jsonSchema).toEqual({ type: 'object', required: ['b'] });
  });

  it('is one list whose phases run in the documented order, pricing last', () => {
    const stages = agentStages({
      connection: {} as Connection,
      attachments: new AttachmentFiles(),
      control: {} as ControlPlane,
      tracing: undefined,
      budget: new BudgetTracker({ maxModelCalls: 1 }),
      reminder: 'r',
      provider: { beginTurn() {}, endTurn: () => null },
      mcp: { takeNotices: () => [] },
      schema: undefined,
      usage: new UsageLedger(),
      logger: spyLogger(),
    });
    const names = (phase: 'prepare' | 'step' | 'finish') => stages.filter((s) => s[phase]).map((s) => s.name);
    expect(names('prepare')).toEqual([
      'slash-command',
      'materialize',
      'pending-steers',
      'pre-turn',
      'budget-start',
      'reminder',
      'provider-usage-start',
      'turn-schema',
    ]);
    expect(names('step')).toEqual(['control-plane', 'tool-transport-warning', 'budget']);
    expect(names('finish')).toEqual([
      'mcp-servers',
      'structured-output',
      'control-plane',
      'provider-usage',
      'cost',
    ]);
  });
});
