// The page: wires the game, the board, the solver and the editor to the
// buttons, keys and swipes. window.S2048.page is the running page (for tests
// and for anyone who drives it from the console).
"use strict";
(function (S2048) {
  const rules = S2048.rules;
  const store = S2048.store;
  const SETTINGS_KEY = "solve2048.settings.v1";
  const KEYS = {
    ArrowUp: "up", ArrowDown: "down", ArrowLeft: "left", ArrowRight: "right",
    w: "up", s: "down", a: "left", d: "right",   // WASD
    k: "up", j: "down", h: "left", l: "right",   // vim
  };
  const SWIPE_PX = 24;
  const MAX_SEED = (1n << 64n) - 1n;

  function byTestId(id) { return document.querySelector('[data-testid="' + id + '"]'); }
  function byAction(action) { return document.querySelector('[data-action="' + action + '"]'); }
  function sleep(ms) { return new Promise(function (resolve) { setTimeout(resolve, ms); }); }

  // ?seed=N in the address: the first game on this page is the seeded game N.
  function seedFromAddress() {
    const text = new URLSearchParams(location.search).get("seed");
    if (text === null || !/^[0-9]{1,20}$/.test(text)) return null;
    const seed = BigInt(text);
    return seed <= MAX_SEED ? seed : null;
  }

  class Page {
    constructor() {
      this.board = byTestId("board");
      this.view = new S2048.BoardView(this.board);
      this.hintPanel = this.makeBars();
      this.editor = new S2048.Editor(this.view,
        { root: byTestId("editor"), picker: byTestId("picker"), paste: byTestId("paste") },
        () => this.positionChanged());
      this.best = store.loadBest();
      this.lastHint = null;       // the last answer of /api/hint, as the server gave it
      this.lastReview = null;     // the last answer of /api/review
      this.autoplayToken = 0;     // the running autoplay's number; 0 when none runs
      this.judgeToken = 0;
      this.hintToken = 0;
      const seed = seedFromAddress();
      const saved = store.loadGame();
      this.game = saved && (seed === null || saved.seed === seed) ? saved : S2048.Game.deal(seed ?? S2048.randomSeed());
      this.restoreSettings();
      this.bind();
      this.showGame();
      this.save();
    }

    makeBars() {
      const bars = {};
      const box = document.querySelector(".bars");
      for (const direction of rules.DIRECTIONS) {
        const row = document.createElement("div");
        row.className = "bar";
        row.dataset.direction = direction;
        row.innerHTML = '<span class="bar-name"></span><span class="bar-track"><span class="bar-fill">' +
          '</span></span><span class="bar-value"></span>';
        row.querySelector(".bar-name").textContent = direction;
        row.dataset.testid = "hint-bar-" + direction;
        box.appendChild(row);
        bars[direction] = { row: row, fill: row.querySelector(".bar-fill"), value: row.querySelector(".bar-value") };
      }
      return { best: byTestId("hint-best"), source: byTestId("hint-source"), bars: bars };
    }

    // ---- settings: depth, time, speed, judging; kept in the browser ----

    restoreSettings() {
      const saved = store.load(SETTINGS_KEY) || {};
      if (typeof saved.time_ms === "number") byTestId("time-ms").value = String(saved.time_ms);
      if (Number.isInteger(saved.speed)) byTestId("speed").value = String(saved.speed);
      if (typeof saved.judge === "boolean") byTestId("judge").checked = saved.judge;
      this.savedDepth = saved.depth;
      byTestId("speed-text").textContent = byTestId("speed").value;
    }

    saveSettings() {
      const time = Number(byTestId("time-ms").value);
      store.save(SETTINGS_KEY, { depth: byTestId("depth").value, time_ms: time > 0 ? time : null,
        speed: Number(byTestId("speed").value), judge: byTestId("judge").checked });
    }

    // The server's limits fill the depth list (auto, where the deepest
    // search it picks is allowed, then 1..max_depth).
    async loadInfo() {
      try {
        this.info = await S2048.api.info();
      } catch (error) {
        this.notice("the server did not answer: the game works, the solver does not");
        return;
      }
      const select = byTestId("depth");
      if (this.info.auto_max_depth > this.info.limits.max_depth) select.querySelector('option[value="auto"]').remove();
      for (let d = 1; d <= this.info.limits.max_depth; d++) {
        const option = document.createElement("option");
        option.value = String(d);
        option.textContent = String(d);
        select.appendChild(option);
      }
      const offered = function (value) { return [...select.options].some(function (o) { return o.value === value; }); };
      const saved = this.savedDepth;
      const own = String(this.info.depth);   // not offered: "auto" on a timed server that bounds it by time
      select.value = saved !== undefined && offered(saved) ? saved
        : offered(own) ? own : String(this.info.limits.max_depth);
    }

    // The depth and time fields of an API request.
    searchFields() {
      const depth = byTestId("depth").value;
      const fields = { depth: depth === "auto" ? "auto" : Number(depth) };
      const time = Number(byTestId("time-ms").value);
      if (byTestId("time-ms").value !== "" && time > 0) fields.time_ms = time;
      return fields;
    }

    // ---- the game ----

    newGame(seed) {
      this.stopAutoplay();
      if (this.editor.active) this.editor.close();
      this.game = S2048.Game.deal(seed ?? S2048.randomSeed());
      this.showGame();
      this.save();
    }

    showGame() {
      this.view.show(this.game.cells);
      this.positionChanged();
      this.judgeToken++; // a verdict on the last game's move is not this game's
      byTestId("judgement").textContent = "";
      byTestId("judgement").classList.remove("mistake");
      this.showScores();
      byTestId("seed").textContent = this.game.seed.toString();
      this.showMessage();
    }

    // The current position: the one being edited, else the game's.
    cells() {
      return this.editor.active ? this.editor.cells.slice() : this.game.cells.slice();
    }

    // Plays a direction; byPlayer moves are judged. Returns whether it moved.
    play(direction, byPlayer) {
      if (this.editor.active || this.messageShown) return false;
      const step = this.game.play(direction);
      if (!step) return false;
      this.view.animate(step, this.game.cells);
      this.best = Math.max(this.best, this.game.score);
      this.positionChanged();
      this.showScores();
      this.save();
      if (byPlayer) this.judge(step.before, direction);
      this.showMessage();
      return true;
    }

    save() {
      const saved = store.saveGame(this.game) && store.saveBest(this.best);
      if (!saved) this.notice("this browser would not save the game (storage full or turned off)");
    }

    showScores() {
      byTestId("score").textContent = String(this.game.score);
      byTestId("best-score").textContent = String(this.best);
    }

    // The win banner (once a game, at the first 2048) or game over, or neither.
    showMessage() {
      const box = byTestId("message");
      const won = this.game.winDue;
      const over = !won && this.game.over;
      box.hidden = !(won || over);
      box.classList.toggle("won", won);
      box.classList.toggle("over", over);
      byTestId("message-text").textContent = won ? "You win!" : over ? "Game over!" : "";
      byAction("keep-going").hidden = !won;
      byAction("message-new-game").textContent = won ? "New game" : "Try again";
      if (won || over) this.stopAutoplay();
    }

    get messageShown() { return !byTestId("message").hidden; }

    keepGoing() {
      this.game.winShown = true;
      this.save();
      this.showMessage();
    }

    // ---- the solver ----

    positionChanged() {
      S2048.hints.clear(this.hintPanel);
      delete this.board.dataset.hint;
      this.lastHint = null;
      this.hintToken++;
    }

    async hint() {
      const token = ++this.hintToken;
      const board = this.cells();
      try {
        const answer = await S2048.api.post("/api/hint", Object.assign({ board: board }, this.searchFields()));
        if (token !== this.hintToken) return; // the board changed while the server thought
        this.lastHint = answer;
        S2048.hints.show(this.hintPanel, answer);
        if (answer.best) this.board.dataset.hint = answer.best; // the arrow on the board
        this.notice("");
      } catch (error) {
        this.notice(error.message);
      }
    }

    // The judgement of the move just played: how much worse than the best.
    async judge(before, direction) {
      if (!byTestId("judge").checked) return;
      const token = ++this.judgeToken;
      const line = byTestId("judgement");
      try {
        const review = await S2048.api.post("/api/review",
          Object.assign({ board: before, played: direction }, this.searchFields()));
        if (token !== this.judgeToken) return;
        this.lastReview = review;
        line.textContent = S2048.hints.judgementText(review);
        line.classList.toggle("mistake", review.mistake);
      } catch (error) {
        if (token === this.judgeToken) line.textContent = "";
        this.notice(error.message);
      }
    }

    get autoplaying() { return this.autoplayToken !== 0; }

    toggleAutoplay() {
      if (this.autoplaying) this.stopAutoplay(); else this.autoplay();
    }

    async autoplay() {
      if (this.editor.active || this.messageShown) return;
      const token = this.autoplayToken = Date.now() + Math.random();
      byAction("autoplay").setAttribute("aria-pressed", "true");
      byAction("autoplay").classList.add("active");
      while (this.autoplayToken === token) {
        const moves = this.game.moves;
        let answer;
        try {
          answer = await S2048.api.post("/api/hint",
            Object.assign({ board: this.game.cells, values: false }, this.searchFields()));
        } catch (error) {
          this.notice(error.message);
          break;
        }
        if (this.autoplayToken !== token || this.game.moves !== moves) return;
        if (answer.best === null || !this.play(answer.best, false)) break;
        await sleep(1000 / Number(byTestId("speed").value));
      }
      if (this.autoplayToken === token) this.stopAutoplay();
    }

    stopAutoplay() {
      this.autoplayToken = 0;
      byAction("autoplay").setAttribute("aria-pressed", "false");
      byAction("autoplay").classList.remove("active");
    }

    // ---- analyse a position ----

    toggleEditor() {
      if (this.editor.active) {
        this.editor.close();
        this.showGame();
      } else {
        this.stopAutoplay();
        this.editor.open(this.game.cells);
        byTestId("message").hidden = true;
      }
      byAction("edit").setAttribute("aria-pressed", String(this.editor.active));
    }

    playFromHere() {
      // No game has the empty board, and no move could change it (docs/rules.md).
      if (rules.maxTile(this.editor.cells) === 0) {
        this.notice("a game cannot start from the empty board: place a tile first");
        return;
      }
      this.notice("");
      const cells = this.editor.close();
      byAction("edit").setAttribute("aria-pressed", "false");
      this.game = S2048.Game.fromBoard(cells, S2048.randomSeed());
      this.showGame();
      this.save();
    }

    async pasteBoard() {
      try {
        await this.editor.paste();
        this.notice("");
      } catch (error) {
        this.notice(error.message);
      }
    }

    download() {
      const blob = new Blob([this.game.record()], { type: "application/x-ndjson" });
      const link = document.createElement("a");
      link.href = URL.createObjectURL(blob);
      link.download = "solve2048-game-" + this.game.seed.toString() + ".jsonl";
      document.body.appendChild(link);
      link.click();
      link.remove();
      setTimeout(function () { URL.revokeObjectURL(link.href); }, 10000);
    }

    notice(text) {
      byTestId("notice").textContent = text;
    }

    // ---- input ----

    onKey(event) {
      if (event.ctrlKey || event.metaKey || event.altKey) return;
      const target = event.target;
      if (target && ["INPUT", "SELECT", "TEXTAREA"].includes(target.tagName) && target.type !== "checkbox") return;
      if (this.autoplaying) { // any key stops the autoplay, and does nothing else
        this.stopAutoplay();
        event.preventDefault();
        return;
      }
      if (this.editor.active) {
        if (event.key === "Enter") this.playFromHere();
        else if (event.key === "Escape") this.toggleEditor();
        else if (!this.editor.key(event)) return;
        event.preventDefault();
        return;
      }
      const direction = KEYS[event.key.length === 1 ? event.key.toLowerCase() : event.key];
      if (direction) {
        event.preventDefault();
        this.play(direction, true);
      }
    }

    bindSwipes() {
      let start = null;
      this.board.addEventListener("touchstart", function (event) {
        if (event.touches.length === 1) start = { x: event.touches[0].clientX, y: event.touches[0].clientY };
      }, { passive: true });
      this.board.addEventListener("touchend", (event) => {
        if (!start || event.changedTouches.length !== 1) return;
        const dx = event.changedTouches[0].clientX - start.x;
        const dy = event.changedTouches[0].clientY - start.y;
        start = null;
        if (Math.max(Math.abs(dx), Math.abs(dy)) < SWIPE_PX) return;
        if (this.autoplaying) { this.stopAutoplay(); return; }
        const direction = Math.abs(dx) > Math.abs(dy) ? (dx > 0 ? "right" : "left") : (dy > 0 ? "down" : "up");
        this.play(direction, true);
      });
    }

    bind() {
      document.addEventListener("keydown", (event) => this.onKey(event));
      this.bindSwipes();
      const actions = {
        "new-game": () => this.newGame(),
        "message-new-game": () => this.newGame(),
        "keep-going": () => this.keepGoing(),
        "hint": () => this.hint(),
        "autoplay": () => this.toggleAutoplay(),
        "edit": () => this.toggleEditor(),
        "set-board": () => this.pasteBoard(),
        "clear-board": () => this.editor.setAll(new Array(16).fill(0)),
        "edit-done": () => this.playFromHere(),
        "download": () => this.download(),
      };
      for (const [action, run] of Object.entries(actions)) {
        byAction(action).addEventListener("click", function (event) { event.currentTarget.blur(); run(); });
      }
      byTestId("paste").addEventListener("keydown", (event) => {
        if (event.key === "Enter") { event.preventDefault(); this.pasteBoard(); }
      });
      const speed = byTestId("speed");
      speed.addEventListener("input", () => { byTestId("speed-text").textContent = speed.value; this.saveSettings(); });
      for (const id of ["depth", "time-ms", "judge"]) {
        byTestId(id).addEventListener("change", (event) => {
          this.saveSettings();
          this.positionChanged();
          // Give the keys back to the board: a focused list would take the arrows.
          if (event.target.tagName === "SELECT") event.target.blur();
        });
      }
    }
  }

  document.addEventListener("DOMContentLoaded", function () {
    const page = new Page();
    S2048.page = page;
    page.ready = page.loadInfo().then(function () { document.body.dataset.ready = "true"; });
  });
})(window.S2048 = window.S2048 || {});
