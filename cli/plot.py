"""``--plot``: reach rates with their intervals and the score distribution, one figure.
matplotlib is an optional extra (pip install 'solve2048[plot]')."""

from __future__ import annotations

import click


def write_plot(path: str, summary: dict, scores: list[int]) -> None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise click.ClickException("--plot needs matplotlib: pip install 'solve2048[plot]'") from None
    tiles = list(summary["reach"])
    shares = [summary["reach"][t] * 100 for t in tiles]
    low = [shares[i] - summary["reach_ci"][t][0] * 100 for i, t in enumerate(tiles)]
    high = [summary["reach_ci"][t][1] * 100 - shares[i] for i, t in enumerate(tiles)]
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.2))
    left.bar(tiles, shares, yerr=[low, high], capsize=4, color="#edc22e", edgecolor="#776e65")
    for x, (share, up) in enumerate(zip(shares, high)):
        left.text(x, share + up + 2, f"{share:.1f}%", ha="center", fontsize=8)
    left.set_ylim(0, 110)
    left.set_xlabel("tile")
    left.set_ylabel("games reaching it (%)")
    left.set_title("Reach rate, 95% Wilson interval")
    right.hist(scores, bins=min(40, max(5, len(scores) // 5)), color="#f59563", edgecolor="#776e65")
    right.axvline(summary["score"]["mean"], color="#3c3a32", linestyle="--", label="mean")
    right.axvline(summary["score"]["median"], color="#3c3a32", linestyle=":", label="median")
    right.set_xlabel("score")
    right.set_ylabel("games")
    right.set_title("Score distribution")
    right.legend()
    depth = summary.get("depth")
    fig.suptitle(f"solve2048: {summary['games']:,} games" + (f" at depth {depth}" if depth is not None else ""))
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
