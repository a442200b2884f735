// Draws the board: 16 grid cells that always hold the position (data-cell,
// data-value: the stable hooks for automation and tests), and above them a
// layer of tiles that slide, merge and appear, for the eye.
"use strict";
(function (S2048) {
  const SLIDE_MS = 100; // as long as the CSS transition of .tile

  function tileClass(value) {
    return value <= S2048.rules.MAX_TILE ? "tile tile-" + value : "tile tile-super";
  }

  function placeAt(element, cell) {
    element.style.setProperty("--row", String(Math.floor(cell / 4)));
    element.style.setProperty("--col", String(cell % 4));
  }

  function makeTile(value, cell, extra) {
    const tile = document.createElement("div");
    tile.className = tileClass(value) + (extra ? " " + extra : "");
    tile.dataset.digits = String(String(value).length);
    tile.textContent = String(value);
    placeAt(tile, cell);
    return tile;
  }

  class BoardView {
    constructor(root) {
      this.root = root;
      this.cells = [];
      const grid = document.createElement("div");
      grid.className = "grid";
      for (let i = 0; i < 16; i++) {
        const cell = document.createElement("div");
        cell.className = "cell";
        cell.dataset.cell = String(i);
        cell.dataset.value = "0";
        grid.appendChild(cell);
        this.cells.push(cell);
      }
      this.layer = document.createElement("div");
      this.layer.className = "tiles";
      root.appendChild(grid);
      root.appendChild(this.layer);
      this.tiles = new Map(); // cell -> tile element
      this.pending = null;    // the end of the running slide
    }

    setCells(cells) {
      cells.forEach((v, i) => { this.cells[i].dataset.value = String(v); });
    }

    // Draws a position at once, with no slide (a new, restored or edited game).
    show(cells) {
      this.finish();
      this.setCells(cells);
      this.layer.replaceChildren();
      this.tiles.clear();
      cells.forEach((v, i) => {
        if (v) {
          const tile = makeTile(v, i, "");
          this.layer.appendChild(tile);
          this.tiles.set(i, tile);
        }
      });
    }

    // Draws one move: every tile slides along its path, merged pairs become
    // their sum, the spawned tile appears. step is what Game.play returned;
    // cells the position after it all.
    animate(step, cells) {
      this.finish();
      this.setCells(cells);
      const next = new Map();
      const leaving = [];
      const merged = new Set();
      for (const path of step.paths) {
        const tile = this.tiles.get(path.from);
        if (!tile) continue;
        placeAt(tile, path.to);
        if (path.merged) {
          leaving.push(tile);
          merged.add(path.to);
        } else {
          next.set(path.to, tile);
        }
      }
      const spawn = makeTile(step.spawn.value, step.spawn.cell, "tile-new");
      this.layer.appendChild(spawn);
      next.set(step.spawn.cell, spawn);
      this.tiles = next;
      const afterSlide = () => {
        leaving.forEach((tile) => tile.remove());
        for (const cell of merged) {
          const tile = makeTile(step.after[cell], cell, "tile-merged");
          this.layer.appendChild(tile);
          this.tiles.set(cell, tile);
        }
        this.pending = null;
      };
      this.pending = { timer: setTimeout(afterSlide, SLIDE_MS), run: afterSlide };
    }

    // Ends a running slide now: a quick player never waits for the eye.
    finish() {
      if (this.pending) {
        clearTimeout(this.pending.timer);
        this.pending.run();
      }
    }

    select(cell) {
      this.cells.forEach((c, i) => c.classList.toggle("selected", i === cell));
    }
  }

  S2048.BoardView = BoardView;
})(window.S2048 = window.S2048 || {});
