// The solver beside the board: the server's JSON API (docs/serve.md), the
// hint with the value of every direction, and the judgement of a move played.
"use strict";
(function (S2048) {
  // POSTs body to the API; resolves to the answer, or rejects with the server's
  // one-line error (or the network's).
  async function post(path, body) {
    let response;
    try {
      response = await fetch(path, { method: "POST", headers: { "Content-Type": "application/json" },
        body: JSON.stringify(body) });
    } catch (error) {
      throw new Error("the server did not answer (is solve2048 serve still running?)");
    }
    let answer;
    try { answer = await response.json(); } catch (error) { answer = null; }
    if (!response.ok) {
      throw new Error(answer && answer.error ? answer.error : "the server answered " + response.status);
    }
    return answer;
  }

  async function info() {
    const response = await fetch("/api/info");
    return response.json();
  }

  function format(value) {
    return value === null ? "illegal" : value.toLocaleString("en-US", { maximumFractionDigits: 1 });
  }

  // A table's success probability as the range its stored entry stands for:
  // entries are rounded down to a step of 1/60 (the first step also holds
  // everything below it); 1 is exact. As table_odds in cli/render.py.
  const PROBABILITY_STEP = 1 / 60;
  function tableOdds(p) {
    if (p >= 1) return "1";
    const low = p <= 1.5 * PROBABILITY_STEP ? 0 : p;
    return low.toFixed(3) + "–" + Math.min(p + PROBABILITY_STEP, 1).toFixed(3);
  }

  // Fills the hint panel: the best direction as a word, and a bar for each
  // direction, scaled from the worst legal value (empty) to the best (full).
  function showHint(panel, hint) {
    panel.best.textContent = hint.best === null ? "none (game over)" : hint.best;
    const searched = hint.depth > 0; // an unsearched table move has no values
    const legal = Object.values(hint.values).filter(function (v) { return v !== null; });
    const top = Math.max.apply(null, legal);
    const bottom = Math.min.apply(null, legal);
    for (const direction of S2048.rules.DIRECTIONS) {
      const value = hint.values[direction];
      const bar = panel.bars[direction];
      let share = direction === hint.best ? 1 : 0;
      if (searched && value !== null) share = top > bottom ? 0.08 + 0.92 * (value - bottom) / (top - bottom) : 1;
      bar.fill.style.width = (100 * share).toFixed(1) + "%";
      bar.value.textContent = searched ? format(value) : "—";
      bar.row.classList.toggle("best", direction === hint.best);
      bar.row.classList.toggle("illegal", searched && value === null);
    }
    const source = [];
    if (hint.from_table) {
      source.push("from an endgame table (p = " + tableOdds(hint.table_probability) + ")");
    } else if (hint.table_probability !== null) {
      source.push("searched: the endgame table gives only p = " + tableOdds(hint.table_probability));
    }
    if (hint.depth) {
      source.push("depth " + hint.depth + searchExtras(hint) + " · " + hint.nodes.toLocaleString("en-US") +
        " nodes · " + (1000 * hint.seconds).toFixed(1) + " ms");
    }
    panel.source.textContent = source.join(" · ");
  }

  // What follows "depth N", as the CLI's hint says it: the search went one
  // move deeper in danger, or looked past crowded leaves (", quiescence 3").
  function searchExtras(hint) {
    const named = [["danger", hint.danger], ["quiescence", hint.quiescence],
      ["late quiescence", hint.late_quiescence]];
    return named.filter(function (pair) { return pair[1] !== null && pair[1] !== undefined; })
      .map(function (pair) { return ", " + pair[0] + " " + pair[1]; }).join("");
  }

  function clearHint(panel) {
    panel.best.textContent = "";
    panel.source.textContent = "";
    for (const direction of S2048.rules.DIRECTIONS) {
      const bar = panel.bars[direction];
      bar.fill.style.width = "0%";
      bar.value.textContent = "";
      bar.row.classList.remove("best", "illegal");
    }
  }

  // One line on the move just played, from POST /api/review.
  function judgementText(review) {
    const loss = (100 * review.loss).toFixed(1) + "%";
    if (review.played === review.best) return review.played + ": the best move";
    const verdict = review.mistake ? "a mistake" : "fine";
    return review.played + ": " + verdict + " — " + review.best + " was best (loss " + loss + ")";
  }

  S2048.api = { post: post, info: info };
  S2048.hints = { show: showHint, clear: clearHint, judgementText: judgementText };
})(window.S2048 = window.S2048 || {});
