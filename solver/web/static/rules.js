// The rules of 2048 in the browser: the page's third implementation of them,
// beside csrc/ and solver/reference.py, and tested against the latter
// (tests/test_browser.py). docs/rules.md states them.
//
// A board is an array of 16 tile values, row by row from the top left; 0 is
// an empty cell. Directions are the words "up", "down", "left", "right".
"use strict";
(function (S2048) {
  const DIRECTIONS = ["up", "down", "left", "right"];
  const MAX_TILE = 131072; // the largest tile a 16-cell game can make

  // The four cells of line i (0..3) listed from the edge the tiles move toward.
  function lineCells(direction, i) {
    switch (direction) {
      case "left": return [4 * i, 4 * i + 1, 4 * i + 2, 4 * i + 3];
      case "right": return [4 * i + 3, 4 * i + 2, 4 * i + 1, 4 * i];
      case "up": return [i, i + 4, i + 8, i + 12];
      case "down": return [i + 12, i + 8, i + 4, i];
      default: throw new Error("not a direction: " + direction);
    }
  }

  // Slides one line toward its start: tiles close up, then each pair of equal
  // neighbours merges from the start, a tile at most once. Returns the values,
  // the points gained and, for each tile, the index it came from and went to.
  function slideLine(values) {
    const tiles = [];
    values.forEach(function (v, i) { if (v) tiles.push({ value: v, from: i }); });
    const out = [0, 0, 0, 0];
    const paths = [];
    let gain = 0;
    let to = 0;
    for (let k = 0; k < tiles.length; k++) {
      const tile = tiles[k];
      const next = tiles[k + 1];
      if (next && next.value === tile.value) {
        out[to] = tile.value * 2;
        gain += tile.value * 2;
        paths.push({ from: tile.from, to: to, merged: true });
        paths.push({ from: next.from, to: to, merged: true });
        k++;
      } else {
        out[to] = tile.value;
        paths.push({ from: tile.from, to: to, merged: false });
      }
      to++;
    }
    return { values: out, gain: gain, paths: paths };
  }

  // The board after a move, with no spawn: {cells, gain, moved, paths}, where
  // paths lists each tile's journey {from, to, merged} in cell numbers. A
  // move that would merge two 131072s (no game holds two; an edited board
  // may) is not a move: the board as it was, moved false.
  function move(cells, direction) {
    const after = cells.slice();
    const paths = [];
    let gain = 0;
    for (let i = 0; i < 4; i++) {
      const index = lineCells(direction, i);
      const line = slideLine(index.map(function (c) { return cells[c]; }));
      index.forEach(function (c, k) { after[c] = line.values[k]; });
      gain += line.gain;
      line.paths.forEach(function (p) {
        paths.push({ from: index[p.from], to: index[p.to], merged: p.merged });
      });
    }
    if (maxTile(after) > MAX_TILE) return { cells: cells.slice(), gain: 0, moved: false, paths: [] };
    const moved = after.some(function (v, i) { return v !== cells[i]; });
    return { cells: after, gain: gain, moved: moved, paths: paths };
  }

  function legalMoves(cells) {
    return DIRECTIONS.filter(function (d) { return move(cells, d).moved; });
  }

  // No legal move on a board with a tile: on a board a game reaches, every
  // cell full and no two equal neighbours (docs/rules.md). The empty board
  // has no move either, but it is no lost game.
  function isGameOver(cells) {
    return maxTile(cells) > 0 && legalMoves(cells).length === 0;
  }

  function emptyCells(cells) {
    const empty = [];
    cells.forEach(function (v, i) { if (!v) empty.push(i); });
    return empty;
  }

  function maxTile(cells) {
    return Math.max.apply(null, cells);
  }

  // A board a game can hold: 16 cells, each 0 or a power of two 2..131072.
  function isBoard(cells) {
    return Array.isArray(cells) && cells.length === 16 && cells.every(function (v) {
      return v === 0 || (Number.isInteger(v) && v >= 2 && v <= MAX_TILE && (v & (v - 1)) === 0);
    });
  }

  S2048.rules = {
    DIRECTIONS: DIRECTIONS, MAX_TILE: MAX_TILE, move: move, legalMoves: legalMoves,
    isGameOver: isGameOver, emptyCells: emptyCells, maxTile: maxTile, isBoard: isBoard,
  };
})(window.S2048 = window.S2048 || {});
