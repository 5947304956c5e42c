/**
 * The turn ledger: which turn a hook call or a tool call belongs to, and the SDK's denials of that turn,
 * folded into its result at the end (fail closed: a turn with a denial never ends `success`).
 *
 * A call is charged to the turn running when it arrives (agy sends no `stepIdx` on Stop and PreInvocation,
 * and none of its payloads names a turn), unless it carries a step index already seen before that turn began:
 * then it is a late call from an ended turn, charged to none.
 */
import type { OperationContext, TurnContext } from '../hooks/context.js';
import type { ToolInvocation } from '../hooks/types.js';
import type { Logger } from '../logger.js';
import { describeDenials, describeDenier } from '../model/denials.js';
import type { DeniedAction, DeniedBy, TurnResult } from '../model/turn-result.js';

/** One turn's ledger. */
export interface TurnState {
  /** The hooks' context of the turn. */
  ctx: TurnContext;
  /** The SDK's denials during the turn. */
  denials: DeniedAction[];
  /** Tool calls gated during the turn, by id, so their post-call hooks share the operation. */
  operations: Map<string, { op: OperationContext; call: ToolInvocation }>;
  /** How many times a `stop` hook kept the agent going. */
  continuations: number;
  /**
   * The turn's latest own response so far (its step index and text), for `StopEvent.responseText`: agy's Stop
   * payload carries no response text, and the SDK has seen the steps.
   */
  response?: { stepIndex: number; text: string };
  /** The highest step index seen before this turn began: steps up to it belong to earlier turns. */
  stepFloor: number;
}

/** The ledger of the running turn, and of hook calls in flight. */
export class TurnLedger {
  #turn: TurnState | undefined;
  /** The highest step index seen in the conversation. */
  #maxStep = -1;
  /**
   * Hook calls in flight → the turn they arrived in (none: no turn, or an ended one). Keyed by the parsed
   * input object, which the listener hands to both observers, so an answer always finds its own request.
   */
  readonly #requests = new WeakMap<object, TurnState | undefined>();

  /** The running turn, if any. */
  get current(): TurnState | undefined {
    return this.#turn;
  }

  /** Opens the ledger of a new turn. */
  begin(ctx: TurnContext): TurnState {
    this.#turn = { ctx, denials: [], operations: new Map(), continuations: 0, stepFloor: this.#maxStep };
    return this.#turn;
  }

  /** Closes the running turn's ledger and returns it. */
  end(): TurnState | undefined {
    const turn = this.#turn;
    this.#turn = undefined;
    return turn;
  }

  /** Notes a step's index (the floor of the next turn). */
  noteStep(stepIndex: number): void {
    if (stepIndex > this.#maxStep) this.#maxStep = stepIndex;
  }

  /** Notes response text of the running turn (a subagent's is not the turn's); a newer step replaces it. */
  noteResponseText(stepIndex: number, delta: string): void {
    const turn = this.#turn;
    if (!turn || stepIndex <= turn.stepFloor) return;
    const response = turn.response;
    if (response && response.stepIndex === stepIndex) response.text += delta;
    else if (!response || stepIndex > response.stepIndex) turn.response = { stepIndex, text: delta };
  }

  /** The turn a call with this step index (if any) belongs to. */
  turnOf(stepIndex: unknown): TurnState | undefined {
    const turn = this.#turn;
    if (!turn) return undefined;
    if (typeof stepIndex === 'number' && stepIndex <= turn.stepFloor) return undefined;
    return turn;
  }

  /** Remembers the turn a hook request arrived in, before any handler runs. */
  noteRequest(input: object, stepIndex: unknown): void {
    this.#requests.set(input, this.turnOf(stepIndex));
  }

  /** The turn a hook request arrived in (forgotten afterwards); unknown requests go to the turn of `stepIndex`. */
  takeRequest(input: unknown, stepIndex: unknown): TurnState | undefined {
    if (typeof input !== 'object' || input === null || !this.#requests.has(input))
      return this.turnOf(stepIndex);
    const turn = this.#requests.get(input);
    this.#requests.delete(input);
    return turn;
  }
}

/** Records an SDK denial of `call` in `turn` (no turn: nothing to charge), and logs who denied it. */
export function recordDenial(
  turn: TurnState | undefined,
  call: ToolInvocation,
  reason: string | undefined,
  deniedBy: DeniedBy,
  logger?: Logger,
): void {
  const action = call.server ? `${call.server}/${call.name}` : call.name;
  logger?.info(`tool '${action}' denied by ${describeDenier(deniedBy)}${reason ? `: ${reason}` : ''}`);
  turn?.denials.push({
    action,
    source: 'sdk',
    deniedBy,
    ...(reason !== undefined && { reason }),
    args: call.args,
  });
}

/** Folds a turn's SDK denials into its result: they join `deniedActions`, and `success` becomes `denied`. */
export function foldDenials(result: TurnResult, denials: readonly DeniedAction[]): TurnResult {
  if (denials.length === 0) return result;
  // agy reports the SDK's own PreToolUse denial on the tool step too ("tool call denied by pre-tool hook: <reason>"):
  // one denial, recorded once, as the SDK's.
  const echoed = (d: DeniedAction) =>
    d.source === 'agy' && d.reason !== undefined && denials.some((s) => s.reason === d.reason);
  const out: TurnResult = {
    ...result,
    deniedActions: [...result.deniedActions.filter((d) => !echoed(d)), ...denials],
  };
  // The message names every decider, the SDK's included: agy's own wording named only agy.
  if (out.status === 'success' || out.status === 'denied') {
    out.status = 'denied';
    out.errorMessage = describeDenials(out.deniedActions);
  }
  return out;
}
