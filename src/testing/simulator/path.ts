/**
 * Where the simulator executable lives, and how to hand it a scenario. Kept free of heavy imports: SDK users
 * load this from `agy-sdk/testing` to point their agent at the simulator.
 */
import { randomUUID } from 'node:crypto';
import { rmSync, statSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { distPath } from '../../internal/script-path.js';
import type { Scenario } from './scenario.js';

/**
 * The absolute path of the compiled simulator: `dist/testing/simulator/agy-sim.mjs`, the build's one-file
 * bundle of it, or `main.js` where there is no bundle as new as `main.js`. Either is an executable script that
 * starts Node (scripts/postbuild.mjs gives it the flags it runs with), usable wherever an `agy` binary path is
 * expected.
 *
 * Resolved under the package's `dist/`, so it works from an installed package; when this module runs from
 * TypeScript sources (tests), it points at the project's `dist/`, which must have been built.
 */
export function simulatorPath(): string {
  const main = distPath('testing/simulator/main.js');
  const bundle = distPath('testing/simulator/agy-sim.mjs');
  // The bundle boots ~15 ms faster (one module instead of ~33: docs/architecture.md "Start path"); a main.js
  // rebuilt after it (tests recompile the simulator alone) wins, so a stale bundle never runs.
  const bundleTime = statSync(bundle, { throwIfNoEntry: false })?.mtimeMs;
  const mainTime = statSync(main, { throwIfNoEntry: false })?.mtimeMs;
  return bundleTime !== undefined && (mainTime === undefined || bundleTime >= mainTime) ? bundle : main;
}

/** Temp directories `writeScenario` made, removed when the process exits. */
const madeDirs = new Set<string>();

/** Removes every temp directory `writeScenario` made that is still there. */
function removeMadeDirs(): void {
  for (const dir of madeDirs) {
    try {
      rmSync(dir, { recursive: true, force: true });
    } catch {
      // The process is exiting: nothing is left to tell, and another directory may still go.
    }
  }
  madeDirs.clear();
}

/**
 * Writes a scenario to a private JSON file (mode 0600) for the `AGY_SIM_SCENARIO` environment variable.
 *
 * @param dir where to write it; by default a fresh private temp directory (mode 0700), removed when this
 *   process exits (every simulator process reads the file when it starts, and an agent may start one at any
 *   turn, so it stays until then). Removing it earlier (`dirname` of the returned path) is fine too.
 * @returns the file's absolute path.
 */
export async function writeScenario(scenario: Scenario, dir?: string): Promise<string> {
  let target = dir;
  if (target === undefined) {
    target = await mkdtemp(join(tmpdir(), 'agy-sim-scenario-'));
    if (madeDirs.size === 0) process.once('exit', removeMadeDirs);
    madeDirs.add(target);
  }
  const file = resolve(target, dir === undefined ? 'scenario.json' : `scenario-${randomUUID()}.json`);
  // `wx`: never follow or overwrite a file someone else put there.
  await writeFile(file, `${JSON.stringify(scenario, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
  return file;
}
