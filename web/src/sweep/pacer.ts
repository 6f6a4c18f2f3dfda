// Keeps the page responsive while the sweep workers use every core. The workers pause between
// slices of a point (sweep_core.ts runPointInSlices); this sets how long, from the page's own
// frame gaps: a late frame (the main thread waited for a core) doubles the pause, a run of
// prompt frames halves it again. On an idle machine the pause stays at its floor and the
// sweep runs at full speed; on one that other work loads, the workers yield more.

export const PAUSE_MIN_MS = 2;
export const PAUSE_MAX_MS = 64;
/** A frame later than this means the page waited for a core. */
const LATE_FRAME_MS = 50;
/** Frames under this are prompt; this long a run of them lowers the pause again. */
const PROMPT_FRAME_MS = 25;
const PROMPT_RUN_MS = 500;

export interface PacerState {
  pauseMs: number;
  /** Time since the last late-or-middling frame, in ms of prompt frames. */
  promptMs: number;
}

export const initialPace = (): PacerState => ({ pauseMs: PAUSE_MIN_MS * 2, promptMs: 0 });

/** The state after one frame gap (ms). */
export function nextPace(s: PacerState, gapMs: number): PacerState {
  if (gapMs > LATE_FRAME_MS) return { pauseMs: Math.min(PAUSE_MAX_MS, s.pauseMs * 2), promptMs: 0 };
  if (gapMs >= PROMPT_FRAME_MS) return { ...s, promptMs: 0 };
  const promptMs = s.promptMs + gapMs;
  if (promptMs < PROMPT_RUN_MS) return { ...s, promptMs };
  return { pauseMs: Math.max(PAUSE_MIN_MS, s.pauseMs / 2), promptMs: 0 };
}

/** Watches frames until stop(); calls `onPause` whenever the pause changes. */
export function startPacer(onPause: (ms: number) => void): { stop(): void } {
  let state = initialPace();
  let last = performance.now();
  let live = true;
  onPause(state.pauseMs);
  const frame = (t: number) => {
    if (!live) return;
    const next = nextPace(state, t - last);
    last = t;
    if (next.pauseMs !== state.pauseMs) onPause(next.pauseMs);
    state = next;
    requestAnimationFrame(frame);
  };
  requestAnimationFrame(frame);
  return {
    stop() {
      live = false;
    },
  };
}
