/** Counts event-loop turns: one per check phase, from a chain of immediates. */
export interface LoopTurns {
  /** Turns counted so far. */
  readonly turn: number;
  /** Stops counting (clears the pending immediate). */
  stop(): void;
}

/** Starts counting event-loop turns now. */
export function countLoopTurns(): LoopTurns {
  let turn = 0;
  let ticker: NodeJS.Immediate | undefined;
  const tick = () => {
    turn++;
    ticker = setImmediate(tick);
  };
  tick();
  return {
    get turn() {
      return turn;
    },
    stop: () => {
      if (ticker) clearImmediate(ticker);
    },
  };
}
