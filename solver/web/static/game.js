// One game in the browser: the board, the score, the seeded generator, every
// move played (for the record), the win and game over, as the rulebook says.
// Saved in the browser's localStorage after every move; the best score is kept
// apart, across games. No drawing here: view.js draws, main.js wires.
"use strict";
(function (S2048) {
  const rules = S2048.rules;
  const WIN_TILE = 2048;
  const GAME_KEY = "solve2048.game.v1";
  const BEST_KEY = "solve2048.best.v1";
  const DIRECTION_INDEX = { up: 0, down: 1, left: 2, right: 3 };

  class Game {
    constructor(fields) {
      this.seed = fields.seed;          // BigInt
      this.rng = fields.rng;            // S2048.Rng
      this.start = fields.start;        // the first board, for the record
      this.given = fields.given;        // the start was set by hand, not dealt
      this.cells = fields.cells;
      this.score = fields.score;
      this.steps = fields.steps;        // [direction index, gain, spawn cell, spawn value]
      this.won = fields.won;            // a merge has made the first 2048 of this game
      this.winShown = fields.winShown;  // the banner has been shown (once a game)
    }

    // A new game: two tiles dealt on the empty board by the seed's generator.
    static deal(seed) {
      const rng = new S2048.Rng(seed);
      const cells = new Array(16).fill(0);
      for (let i = 0; i < 2; i++) {
        const spawn = rng.spawn(cells);
        cells[spawn.cell] = spawn.value;
      }
      return new Game({ seed: BigInt(seed), rng: rng, start: cells.slice(), given: false,
        cells: cells, score: 0, steps: [], won: false, winShown: false });
    }

    // A game from a board set by hand: the generator deals only its spawns.
    static fromBoard(cells, seed) {
      return new Game({ seed: BigInt(seed), rng: new S2048.Rng(seed), start: cells.slice(),
        given: true, cells: cells.slice(), score: 0, steps: [], won: false,
        winShown: rules.maxTile(cells) >= WIN_TILE });
    }

    get moves() { return this.steps.length; }
    get over() { return rules.isGameOver(this.cells); }
    // The banner is due: 2048 was made and the banner not yet shown.
    get winDue() { return this.won && !this.winShown; }

    // Plays one direction. Returns null when it changes nothing (no spawn, no
    // cost), else {direction, before, after (before the spawn), paths, gain, spawn}.
    play(direction) {
      const result = rules.move(this.cells, direction);
      if (!result.moved) return null;
      const before = this.cells;
      const spawn = this.rng.spawn(result.cells);
      const cells = result.cells.slice();
      cells[spawn.cell] = spawn.value;
      if (!this.won && rules.maxTile(result.cells) >= WIN_TILE && rules.maxTile(before) < WIN_TILE) {
        this.won = true;
      }
      this.cells = cells;
      this.score += result.gain;
      this.steps.push([DIRECTION_INDEX[direction], result.gain, spawn.cell, spawn.value]);
      return { direction: direction, before: before, after: result.cells, paths: result.paths,
        gain: result.gain, spawn: spawn };
    }

    // The game as a record, one JSON line each, that `solve2048 replay` and
    // `solve2048 review` read (docs/formats.md). A game still in progress has
    // no end line, as the format says of a game stopped midway.
    record() {
      const start = '{"type": "start", "seed": ' + this.seed.toString() + ', "depth": null, "board": ' +
        JSON.stringify(this.start) + (this.given ? ', "given": true' : "") + "}";
      const lines = [start];
      for (const [d, gain, cell, value] of this.steps) {
        lines.push(JSON.stringify({ type: "move", dir: rules.DIRECTIONS[d], gain: gain,
          spawn: { cell: cell, value: value } }));
      }
      if (this.over) {
        lines.push(JSON.stringify({ type: "end", score: this.score, max_tile: rules.maxTile(this.cells),
          moves: this.moves, won: this.won, reason: "game_over" }));
      }
      return lines.join("\n") + "\n";
    }

    toJSON() {
      return { version: 1, seed: this.seed.toString(), rng: this.rng.saveState(), start: this.start,
        given: this.given, cells: this.cells, score: this.score, steps: this.steps,
        won: this.won, winShown: this.winShown };
    }

    // A saved game, or null when what is stored is not one (damaged or old):
    // storage is untrusted, and a bad save costs the game, never the page.
    static fromJSON(data) {
      try {
        if (!data || data.version !== 1 || !rules.isBoard(data.cells) || !rules.isBoard(data.start)) return null;
        if (!Array.isArray(data.rng) || data.rng.length !== 4 || !Array.isArray(data.steps)) return null;
        if (!Number.isSafeInteger(data.score) || data.score < 0) return null;
        const ok = data.steps.every(function (s) {
          return Array.isArray(s) && s.length === 4 && s.every(Number.isSafeInteger);
        });
        if (!ok) return null;
        return new Game({ seed: BigInt(data.seed), rng: S2048.Rng.fromState(data.rng), start: data.start,
          given: data.given === true, cells: data.cells, score: data.score, steps: data.steps,
          won: data.won === true, winShown: data.winShown === true });
      } catch (error) {
        return null;
      }
    }
  }

  // localStorage, which may be full, turned off or hold anything.
  const store = {
    loadGame: function () {
      try { return Game.fromJSON(JSON.parse(localStorage.getItem(GAME_KEY))); } catch (e) { return null; }
    },
    saveGame: function (game) {
      try { localStorage.setItem(GAME_KEY, JSON.stringify(game)); return true; } catch (e) { return false; }
    },
    loadBest: function () {
      const best = Number(localStorage.getItem(BEST_KEY));
      return Number.isSafeInteger(best) && best > 0 ? best : 0;
    },
    saveBest: function (best) {
      try { localStorage.setItem(BEST_KEY, String(best)); return true; } catch (e) { return false; }
    },
    load: function (key) {
      try { return JSON.parse(localStorage.getItem(key)); } catch (e) { return null; }
    },
    save: function (key, value) {
      try { localStorage.setItem(key, JSON.stringify(value)); return true; } catch (e) { return false; }
    },
  };

  S2048.Game = Game;
  S2048.store = store;
  S2048.WIN_TILE = WIN_TILE;
})(window.S2048 = window.S2048 || {});
