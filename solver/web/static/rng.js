// The game's random generator: xoshiro256** seeded by SplitMix64, draw for draw
// the generator of csrc/rng.c and solver/rng.py, so a game played on the page
// with seed S deals the tiles `solve2048 replay` expects of seed S.
"use strict";
(function (S2048) {
  const MASK = (1n << 64n) - 1n;

  function rotl(x, k) {
    return ((x << k) | (x >> (64n - k))) & MASK;
  }

  class Rng {
    // seed: a BigInt, or a decimal string, 0..2^64-1.
    constructor(seed) {
      let x = BigInt(seed) & MASK;
      this.state = [];
      for (let i = 0; i < 4; i++) {
        x = (x + 0x9E3779B97F4A7C15n) & MASK;
        let z = x;
        z = ((z ^ (z >> 30n)) * 0xBF58476D1CE4E5B9n) & MASK;
        z = ((z ^ (z >> 27n)) * 0x94D049BB133111EBn) & MASK;
        this.state.push(z ^ (z >> 31n));
      }
    }

    static fromState(words) {
      const rng = new Rng(0n);
      rng.state = words.map(function (w) { return BigInt(w) & MASK; });
      return rng;
    }

    saveState() {
      return this.state.map(function (w) { return w.toString(); });
    }

    next() {
      const s = this.state;
      const result = (rotl((s[1] * 5n) & MASK, 7n) * 9n) & MASK;
      const t = (s[1] << 17n) & MASK;
      s[2] ^= s[0];
      s[3] ^= s[1];
      s[1] ^= s[2];
      s[0] ^= s[3];
      s[2] ^= t;
      s[3] = rotl(s[3], 45n);
      return result;
    }

    // A uniform integer in 0..n-1 (Lemire's method on the top 32 bits).
    below(n) {
      const bn = BigInt(n);
      let m = (this.next() >> 32n) * bn;
      if ((m & 0xFFFFFFFFn) < bn) {
        const threshold = ((1n << 32n) - bn) % bn;
        while ((m & 0xFFFFFFFFn) < threshold) {
          m = (this.next() >> 32n) * bn;
        }
      }
      return Number(m >> 32n);
    }

    // A spawn for these 16 cells: {cell, value}; the cells are not changed.
    spawn(cells) {
      const empty = S2048.rules.emptyCells(cells);
      const cell = empty[this.below(empty.length)];
      const value = this.below(10) === 0 ? 4 : 2;
      return { cell: cell, value: value };
    }
  }

  // A fresh 64-bit seed from the browser's cryptographic generator.
  function randomSeed() {
    const words = new Uint32Array(2);
    crypto.getRandomValues(words);
    return (BigInt(words[0]) << 32n) | BigInt(words[1]);
  }

  S2048.Rng = Rng;
  S2048.randomSeed = randomSeed;
})(window.S2048 = window.S2048 || {});
