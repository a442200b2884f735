"""bench/layer_sizes.py: its layers add up to each table's entries, and a
layer count agrees with the arrangements counted one by one."""

from __future__ import annotations

import itertools

import pytest
from helpers import bench_module

from solve2048.reference_tables import free_caps
from solve2048.tables import DEFAULT_SPECS, TableSpec


@pytest.fixture(scope="module")
def sizes():
    return bench_module("layer_sizes")


@pytest.mark.parametrize("spec", DEFAULT_SPECS, ids=lambda spec: spec.label)
def test_the_layers_of_a_default_table_add_up_to_its_entries(sizes, spec: TableSpec) -> None:
    caps = list(free_caps(spec.frozen, spec.goal, spec.shape).values())
    assert sum(sizes.layer_counts(caps)) == spec.entries


def test_each_layer_holds_the_arrangements_of_its_sum(sizes) -> None:
    caps = [3, 1, 2]   # tiles up to 8, 2 and 4 on three cells
    counted = [0] * 16
    for ranks in itertools.product(*(range(cap + 1) for cap in caps)):
        counted[sum(1 << rank for rank in ranks if rank)] += 1
    assert sizes.layer_counts(caps) == counted[: len(sizes.layer_counts(caps))]
    # A sum of 6: 4 2 0, 4 0 2, 2 0 4, 0 2 4 and 2 2 2.
    assert sizes.layer_counts(caps)[6] == 5
