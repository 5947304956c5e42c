// vitest globalSetup: a private default state directory for every simulator the suite starts without its own
// `AGY_SIM_STATE_DIR`, removed when the run ends. Without it such simulators keep their conversations where a
// user's would be (`<tmpdir>/agy-sim-state-<uid>`, testing/simulator/state.ts), and each run left ~90 files
// there. The workers are forked after this runs, so they and every child that inherits their environment see it.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export default function setup(): () => void {
  const dir = mkdtempSync(join(tmpdir(), 'agy-sdk-test-sim-state-'));
  process.env.AGY_SIM_STATE_DIR ??= dir;
  return () => rmSync(dir, { recursive: true, force: true });
}
