/**
 * The chaos suite's only source of randomness: a small seeded PRNG
 * (mulberry32), so a seed printed by `npm run chaos` replays the same runs
 * and the same kill moments. Pure; used by plan.ts. Not for anything that
 * needs unpredictability (the fake tokens take their randomness from the
 * seed too: they only have to be unique, not secret).
 */

/** The largest seed: seeds are unsigned 32-bit integers. */
export const MAX_SEED = 0xffff_ffff;

export type Rng = {
  /** A float in [0, 1). */
  next(): number;
  /** An integer in [min, max], both included. */
  int(min: number, max: number): number;
  /** `count` lowercase hex characters. */
  hex(count: number): string;
};

export function createRng(seed: number): Rng {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
  const int = (min: number, max: number) => {
    if (!Number.isInteger(min) || !Number.isInteger(max) || max < min) throw new RangeError(`bad range [${min}, ${max}]`);
    return min + Math.floor(next() * (max - min + 1));
  };
  const hex = (count: number) => Array.from({ length: count }, () => int(0, 15).toString(16)).join("");
  return { next, int, hex };
}

/** A fresh seed for a run that was not given one (from the caller's randomness). */
export function seedFrom(random: () => number): number {
  return Math.floor(random() * (MAX_SEED + 1)) >>> 0;
}
