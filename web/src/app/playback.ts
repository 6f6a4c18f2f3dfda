// Playback pacing on the main thread: how far the simulation should have got (the target
// simulated instant) after each animation frame, and how many events one worker message
// may process so each answer comes back within a frame or two.

export const SPEEDS = [1, 2, 5, 10, 30, 100, 300, Infinity] as const;
export const DEFAULT_SPEED = 10;
/** At max speed, how far ahead of the slowest run the target may be (simulated µs). */
export const MAX_SPEED_LEAD_US = 2_000_000;
/**
 * At max speed, advances a run may have outstanding: the worker finds the next one queued
 * when it answers, instead of idling until the page's next animation frame. Answers are
 * handled in order and each one only carries the rows since the previous, so results do not
 * depend on it. At a set speed one is enough (the clock, not the worker, sets the pace).
 */
export const MAX_SPEED_IN_FLIGHT = 2;
/** A frame later than this (ms since the previous one) missed the display's refresh. */
export const MISSED_FRAME_MS = 25;
/** How long after a missed frame max speed keeps one advance in flight (ms). */
export const AFTER_MISSED_FRAME_MS = 1000;

/**
 * Advances a run may have outstanding at `speed`. On a busy machine a worker that never
 * pauses takes the CPU the page needs to draw its frames: for a while after a missed frame
 * (`msSinceMissedFrame`), max speed keeps one in flight (the next one is still sent as soon
 * as the answer arrives).
 */
export function advancesInFlight(speed: number, msSinceMissedFrame = Infinity): number {
  if (Number.isFinite(speed) || msSinceMissedFrame < AFTER_MISSED_FRAME_MS) return 1;
  return MAX_SPEED_IN_FLIGHT;
}

/**
 * The worker's time for one answer when requests queue up behind each other: from when it
 * could start on it (the request was sent, or the previous answer arrived, whichever is
 * later) to its arrival. With one request in flight this is the round trip.
 */
export function serviceMs(sentAtMs: number, previousAnswerAtMs: number, answerAtMs: number): number {
  return Math.max(0, answerAtMs - Math.max(sentAtMs, previousAnswerAtMs));
}

export function speedLabel(speed: number): string {
  return Number.isFinite(speed) ? `${speed}×` : 'max';
}

export class PlaybackClock {
  /** Simulated µs the run should reach. */
  targetUs = 0;

  /**
   * Moves the target on by `speed` simulated seconds per wall second over `dtMs`, but
   * keeps it at most `maxLeadS` wall seconds of playback ahead of where the run is
   * (`simNowUs`), so a slow machine does not build a backlog it then rushes through.
   */
  tick(dtMs: number, speed: number, simNowUs: number, maxLeadS = 0.1): number {
    if (!Number.isFinite(speed)) {
      // As fast as the worker goes; a bounded lead keeps runs compared side by side in step.
      this.targetUs = simNowUs + MAX_SPEED_LEAD_US;
      return this.targetUs;
    }
    const dt = Math.max(0, Math.min(dtMs, 250)); // a background tab resumes gently
    const leadUs = speed * maxLeadS * 1e6;
    this.targetUs = Math.min(Math.max(this.targetUs, simNowUs) + speed * dt * 1e3, simNowUs + leadUs);
    this.targetUs = Math.floor(this.targetUs);
    return this.targetUs;
  }

  reset(): void {
    this.targetUs = 0;
  }
}

/**
 * Events per advance message, adapted to the measured time per answer (`serviceMs`): doubles
 * while answers come back fast, halves when one takes longer than the target, within
 * [min, max].
 */
export class EventBudget {
  constructor(
    public value = 2000,
    private readonly min = 200,
    private readonly max = 500000,
    private readonly targetMs = 12,
  ) {}

  update(roundTripMs: number, eventsUsed: number): number {
    if (roundTripMs > this.targetMs * 2) this.value = Math.max(this.min, Math.floor(this.value / 2));
    else if (roundTripMs < this.targetMs / 2 && eventsUsed >= this.value) this.value = Math.min(this.max, this.value * 2);
    return this.value;
  }
}
