// "Analyse a position": set any board by hand (a cell, then a tile, or keys)
// or by pasting it in any notation the command line reads (the server parses
// it, so the page reads exactly what `solve2048 hint` reads).
"use strict";
(function (S2048) {
  const VALUES = [0];
  for (let v = 2; v <= S2048.rules.MAX_TILE; v *= 2) VALUES.push(v);

  class Editor {
    // view: the BoardView; elements: {root, picker, paste}; onChange(cells) after each edit.
    constructor(view, elements, onChange) {
      this.view = view;
      this.elements = elements;
      this.onChange = onChange;
      this.cells = null;   // the board being set, or null when not editing
      this.selected = 0;
      for (const value of VALUES) {
        const button = document.createElement("button");
        button.type = "button";
        button.className = "pick " + (value ? "tile-" + value : "pick-empty");
        button.dataset.pick = String(value);
        button.textContent = value ? String(value) : "·";
        button.addEventListener("click", () => this.set(value));
        elements.picker.appendChild(button);
      }
      view.cells.forEach((cell, i) => cell.addEventListener("click", () => {
        if (this.active) this.select(i);
      }));
    }

    get active() { return this.cells !== null; }

    open(cells) {
      this.cells = cells.slice();
      this.elements.root.hidden = false;
      this.view.root.classList.add("editing");
      this.select(this.selected);
      this.view.show(this.cells);
    }

    close() {
      const cells = this.cells;
      this.cells = null;
      this.elements.root.hidden = true;
      this.view.root.classList.remove("editing");
      this.view.select(-1);
      return cells;
    }

    select(cell) {
      this.selected = cell;
      this.view.select(cell);
    }

    set(value) {
      this.cells[this.selected] = value;
      this.changed();
    }

    setAll(cells) {
      this.cells = cells.slice();
      this.changed();
    }

    changed() {
      this.view.show(this.cells);
      this.view.select(this.selected);
      this.onChange(this.cells);
    }

    // One key while editing; true when the editor used it.
    key(event) {
      const rank = VALUES.indexOf(this.cells[this.selected]);
      const moves = { ArrowUp: -4, ArrowDown: 4, ArrowLeft: -1, ArrowRight: 1 };
      if (event.key in moves) {
        this.select((this.selected + moves[event.key] + 16) % 16);
      } else if (event.key === "+" || event.key === "=") {
        this.set(VALUES[Math.min(rank + 1, VALUES.length - 1)]);
      } else if (event.key === "-") {
        this.set(VALUES[Math.max(rank - 1, 0)]);
      } else if (["0", ".", "Backspace", "Delete"].includes(event.key)) {
        this.set(0);
      } else {
        return false;
      }
      return true;
    }

    // Reads the paste box through the server; rejects with its one-line error.
    async paste() {
      const text = this.elements.paste.value.trim();
      if (!text) throw new Error("type or paste a board first");
      const answer = await S2048.api.post("/api/parse", { board: text });
      this.setAll(answer.board);
    }
  }

  S2048.Editor = Editor;
  S2048.Editor.VALUES = VALUES;
})(window.S2048 = window.S2048 || {});
