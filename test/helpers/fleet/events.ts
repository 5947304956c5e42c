/** Reading a fleet job's progress events in tests. */
import type { FleetEvent } from '../../../src/fleet/index.js';

/** Reads events until one matches; returns every event read, the match last. Fails if the stream ends first. */
export async function eventsUntil(
  events: AsyncIterator<FleetEvent>,
  match: (e: FleetEvent) => boolean,
): Promise<FleetEvent[]> {
  const seen: FleetEvent[] = [];
  for (;;) {
    const next = await events.next();
    if (next.done) throw new Error(`events ended before a match: ${JSON.stringify(seen)}`);
    seen.push(next.value);
    if (match(next.value)) return seen;
  }
}
