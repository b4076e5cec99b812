"""Forward batches: sorted lengths cut by a count and a padded-position budget (gate.runtime.engines.batching)."""

from __future__ import annotations

import pytest

from gate.runtime.engines.batching import (
    CPU_BATCH_ACTIVATIONS,
    MIN_CPU_BUDGET,
    NO_LIMIT,
    ForwardMeter,
    budget_batches,
    hidden_width,
    position_budget,
)


def cut(lengths, batch_size, positions):
    return [[lengths[i] for i in rows] for rows in budget_batches(lengths, batch_size, positions)]


def test_batches_stay_within_both_limits():
    lengths = [300, 120, 100, 100, 60, 50, 10, 10, 10, 10, 10]
    assert cut(lengths, 64, 256) == [[300], [120, 100], [100, 60], [50, 10, 10, 10, 10], [10]]
    assert cut(lengths, 3, 256) == [[300], [120, 100], [100, 60], [50, 10, 10], [10, 10, 10]]
    assert cut(lengths, 64, NO_LIMIT) == [lengths]  # no budget: batch_size alone
    assert cut(lengths, 4, NO_LIMIT) == [lengths[:4], lengths[4:8], lengths[8:]]


def test_every_item_lands_in_exactly_one_batch_in_order():
    lengths = sorted([(i * 37) % 113 + 1 for i in range(500)], reverse=True)
    batches = budget_batches(lengths, 16, 700)
    assert [i for rows in batches for i in rows] == list(range(500))
    assert all(len(r) <= 16 and (len(r) == 1 or len(r) * lengths[r.start] <= 700) for r in batches)


def test_empty_and_zero_length_items():
    assert budget_batches([], 8, 100) == []
    assert cut([0, 0, 0], 2, 100) == [[0, 0], [0]]  # an empty sequence still takes a row


@pytest.mark.parametrize(("configured", "device", "width", "expected"), [
    (1000, "cpu", 384, 1000),  # runtime.batch_tokens wins
    (1000, "cuda", 768, 1000),
    (None, "cpu", 384, 2730),
    (None, "cpu", 768, 1365),
    (None, "cpu", 4096, MIN_CPU_BUDGET),  # very wide models keep a useful batch
    (None, "cuda", 384, NO_LIMIT),  # on a GPU only batch_size limits a batch
    (None, "cpu", None, NO_LIMIT),
])
def test_position_budget(configured, device, width, expected):
    assert position_budget(configured, device, width) == expected
    assert CPU_BATCH_ACTIVATIONS == 2**20


def test_meter_counts_masks_and_counts():
    class Mask:  # what ForwardMeter.add reads of a torch mask, without torch
        shape = (2, 5)

        def sum(self):
            return 7

        def numel(self):
            return 10

    meter = ForwardMeter()
    meter.add(0.5, Mask())
    meter.count(0.25, 3, 4, 1)
    assert (meter.seconds, meter.tokens, meter.positions, meter.sequences) == (0.75, 10, 14, 3)


def test_hidden_width_reads_bert_and_t5_style_configs():
    from types import SimpleNamespace

    assert hidden_width(SimpleNamespace(hidden_size=768)) == 768
    assert hidden_width(SimpleNamespace(d_model=512)) == 512
    assert hidden_width(SimpleNamespace()) is None and hidden_width(None) is None
