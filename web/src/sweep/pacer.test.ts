import { describe, expect, it } from 'vitest';
import { initialPace, nextPace, PAUSE_MAX_MS, PAUSE_MIN_MS } from './pacer';

describe('the sweep pacer', () => {
  it('doubles the pause on a late frame, up to its ceiling', () => {
    let s = initialPace();
    const first = s.pauseMs;
    s = nextPace(s, 120);
    expect(s.pauseMs).toBe(first * 2);
    for (let i = 0; i < 20; i++) s = nextPace(s, 200);
    expect(s.pauseMs).toBe(PAUSE_MAX_MS);
  });

  it('halves it after half a second of prompt frames, down to its floor', () => {
    let s = { pauseMs: 32, promptMs: 0 };
    for (let i = 0; i < 29; i++) s = nextPace(s, 16.7);
    expect(s.pauseMs).toBe(32); // 29 frames: 484 ms
    s = nextPace(s, 16.7);
    expect(s.pauseMs).toBe(16);
    for (let i = 0; i < 1000; i++) s = nextPace(s, 16.7);
    expect(s.pauseMs).toBe(PAUSE_MIN_MS);
  });

  it('a middling frame restarts the prompt run without changing the pause', () => {
    let s = { pauseMs: 8, promptMs: 480 };
    s = nextPace(s, 33);
    expect(s).toEqual({ pauseMs: 8, promptMs: 0 });
  });
});
