import { describe, expect, it } from 'vitest';
import {
  AFTER_MISSED_FRAME_MS,
  advancesInFlight,
  EventBudget,
  MAX_SPEED_IN_FLIGHT,
  MAX_SPEED_LEAD_US,
  MISSED_FRAME_MS,
  PlaybackClock,
  serviceMs,
  speedLabel,
} from './playback';

describe('PlaybackClock', () => {
  it('advances the target by speed × wall time', () => {
    const c = new PlaybackClock();
    expect(c.tick(16, 10, 0)).toBe(160000); // 16 ms × 10 = 0.16 s simulated
    expect(c.tick(16, 10, 160000)).toBe(320000);
  });

  it('never runs further ahead of the simulation than the lead', () => {
    const c = new PlaybackClock();
    for (let i = 0; i < 100; i++) c.tick(16, 10, 0); // the worker is stuck at 0
    expect(c.targetUs).toBe(1e6); // 0.1 s of playback at 10×
  });

  it('clamps a long frame gap (background tab)', () => {
    const c = new PlaybackClock();
    expect(c.tick(10000, 1, 0)).toBe(100000); // 250 ms at most, then the 0.1 s lead
  });

  it('runs a bounded lead ahead at max speed', () => {
    const c = new PlaybackClock();
    expect(c.tick(16, Infinity, 0)).toBe(MAX_SPEED_LEAD_US);
    expect(c.tick(16, Infinity, 7_000_000)).toBe(7_000_000 + MAX_SPEED_LEAD_US);
    expect(speedLabel(Infinity)).toBe('max');
    expect(speedLabel(30)).toBe('30×');
  });
});

describe('EventBudget', () => {
  it('doubles when fast and fully used, halves when slow, within bounds', () => {
    const b = new EventBudget(1000, 250, 4000, 10);
    expect(b.update(2, 1000)).toBe(2000);
    expect(b.update(2, 500)).toBe(2000); // not used up: the run was not limited by it
    expect(b.update(2, 2000)).toBe(4000);
    expect(b.update(2, 4000)).toBe(4000);
    expect(b.update(50, 4000)).toBe(2000);
    for (let i = 0; i < 10; i++) b.update(50, 0);
    expect(b.value).toBe(250);
  });
});

describe('advances in flight', () => {
  it('one at a set speed, more at max speed so the worker finds the next one queued', () => {
    for (const s of [1, 10, 300]) expect(advancesInFlight(s)).toBe(1);
    expect(MAX_SPEED_IN_FLIGHT).toBeGreaterThan(1);
    expect(advancesInFlight(Infinity)).toBe(MAX_SPEED_IN_FLIGHT);
  });

  it('one at max speed for a while after a missed frame, so the page gets the CPU back', () => {
    expect(advancesInFlight(Infinity, 0)).toBe(1);
    expect(advancesInFlight(Infinity, AFTER_MISSED_FRAME_MS - 1)).toBe(1);
    expect(advancesInFlight(Infinity, AFTER_MISSED_FRAME_MS)).toBe(MAX_SPEED_IN_FLIGHT);
    expect(advancesInFlight(10, Infinity)).toBe(1);
    expect(MISSED_FRAME_MS).toBeGreaterThan(1000 / 60); // a frame on time never counts as missed
  });

  it('times an answer from when the worker could start on it, not from when it was sent', () => {
    expect(serviceMs(100, 0, 112)).toBe(12); // alone: the round trip
    expect(serviceMs(100, 130, 142)).toBe(12); // queued behind one answered at 130
    expect(serviceMs(100, 130, 125)).toBe(0); // never negative
  });
});
