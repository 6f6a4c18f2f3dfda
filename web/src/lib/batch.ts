// One engine step's batch as the simulator reports it, in both the step trace (stepTrace) and
// the engine snapshot (the mechanism view): how many prefill chunks and decodes it holds and
// their tokens. One place names them, so the trace's step names and the mechanism view's
// sentence say the same thing.

/** The counts every batch report carries (wasm/step_trace.cpp, wasm/engine_snapshot.cpp). */
export interface BatchCounts {
  tokens: number;
  prefill_tokens: number;
  prefills: number;
  decodes: number;
  spec_tokens: number;
  preempted: number;
}

export const plural = (n: number, word: string): string => `${n} ${word}${n === 1 ? '' : 's'}`;

/** The batch's two parts: its prefill chunks and its decodes, each with its tokens. */
export function batchParts(b: BatchCounts): { label: string; count: number; tokens: number }[] {
  return [
    { label: plural(b.prefills, 'prefill chunk'), count: b.prefills, tokens: b.prefill_tokens },
    { label: plural(b.decodes, 'decode'), count: b.decodes, tokens: b.tokens - b.prefill_tokens },
  ];
}
