"""k-of-n per item (issue 35, item 1), `gate.judge.passrates`: each item's draws against the suite's criterion.
Pass counts are counted in the test from the draws written here; the Wilson bound is statsmodels'
`proportion_confint(method="wilson")`; pass@k and pass^k are enumerated over every k-subset of the draws
(`itertools.combinations`), never read back from the module's own formulas."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from statsmodels.stats.proportion import proportion_confint

from gate.config.items import ItemsConfig
from gate.judge.passrates import problems, with_pass_rates
from gate.kinds.samples import collapse
from gate.results import GroupResult, Item, SuiteResult
from gate.stats import statistics

# item id -> (model, its draws of `score`)
DRAWS = {"a": ("m", [0.9, 0.8, 0.95, 0.85, 0.9]),   # 5 of 5 meet score ≥ 0.5
         "b": ("m", [0.6, 0.4, 0.55, 0.3, 0.7]),    # 3 of 5
         "c": ("n", [0.1, 0.2, 0.5, 0.3, 0.0]),     # 1 of 5 (0.5 is on the bound: it meets)
         "d": ("n", [0.2, 0.1, 0.3, 0.2, 0.1])}     # 0 of 5


def sampled(draws=DRAWS) -> SuiteResult:
    items = tuple(Item((("id", i), ("model", m), ("sample", str(s))), {"score": v, "text": "t"})
                  for i, (m, d) in draws.items() for s, v in enumerate(d))
    groups = tuple(GroupResult("group", (("model", m),), {"score_mean": 0.0}, 0) for m in ("m", "n"))
    result = SuiteResult("s", "heuristic", {"score_mean": 0.0}, groups, items, ("id", "model", "sample", "score"))
    return collapse(result, lambda metric: statistics.mean("score") if metric == "score_mean" else None)


def items(**given) -> ItemsConfig:
    return ItemsConfig.model_validate({"criterion": {"metric": "score", "min": 0.5}, **given})


def subsets(hits: list[bool], k: int) -> tuple[float, float]:
    """(pass@k, pass^k) by enumeration: the share of k-subsets of the draws with at least one pass / all passing."""
    chosen = list(itertools.combinations(hits, k))
    return sum(any(s) for s in chosen) / len(chosen), sum(all(s) for s in chosen) / len(chosen)


@pytest.mark.parametrize("k", [1, 2, 3, 5])
def test_each_items_pass_rate_wilson_bound_pass_at_k_and_pass_hat_k(k):
    result = with_pass_rates(sampled(), items(k=k, pass_rate_min=0.2))
    for item in result.items:
        hits = [v >= 0.5 for v in DRAWS[dict(item.key)["id"]][1]]
        c, n = sum(hits), len(hits)
        low, _ = proportion_confint(c, n, alpha=0.05, method="wilson")
        at_k, hat_k = subsets(hits, k)
        assert item.values["passed"] == c and item.draws == n
        assert item.values["pass_rate"] == pytest.approx(c / n, abs=1e-15)
        assert item.values["pass_rate_low"] == pytest.approx(low, abs=1e-12)
        assert item.values["pass_at_k"] == pytest.approx(at_k, abs=1e-12)
        assert item.values["pass_hat_k"] == pytest.approx(hat_k, abs=1e-12)
        assert item.values["pass_rate_met"] == (1.0 if low >= 0.2 else 0.0)
        # the indicator's own noise, as a change test reads any sampled value: var(0/1 draws), ddof 1
        assert item.spread["pass_rate"] == pytest.approx(np.var([float(h) for h in hits], ddof=1), abs=1e-15)


def test_group_and_suite_metrics_are_means_over_items():
    result = with_pass_rates(sampled(), items(k=2, pass_rate_min=0.2))
    rates = {i: sum(v >= 0.5 for v in d) / 5 for i, (_, d) in DRAWS.items()}
    lows = {i: proportion_confint(round(r * 5), 5, method="wilson")[0] for i, r in rates.items()}
    hat = {i: subsets([v >= 0.5 for v in d], 2)[1] for i, (_, d) in DRAWS.items()}
    group = {dict(g.key)["model"]: g.metrics for g in result.groups}
    assert group["m"]["pass_rate_mean"] == pytest.approx((rates["a"] + rates["b"]) / 2)
    assert group["n"]["pass_hat_k_mean"] == pytest.approx((hat["c"] + hat["d"]) / 2)
    assert result.metrics["pass_rate_low_mean"] == pytest.approx(np.mean(list(lows.values())))
    assert result.metrics["pass_rate_met_share"] == pytest.approx(np.mean([low >= 0.2 for low in lows.values()]))
    assert result.metrics["score_mean"] == pytest.approx(np.mean([np.mean(d) for _, d in DRAWS.values()]))
    assert result.criterion == "score ≥ 0.5"
    assert result.item_columns[-6:] == ("passed", "pass_rate", "pass_rate_low", "pass_at_k", "pass_hat_k",
                                        "pass_rate_met")


def test_a_max_criterion_and_k_defaulting_to_each_items_draws():
    config = ItemsConfig.model_validate({"criterion": {"metric": "score", "max": 0.3}})
    result = with_pass_rates(sampled(), config)
    for item in result.items:
        hits = [v <= 0.3 for v in DRAWS[dict(item.key)["id"]][1]]
        assert item.values["pass_at_k"] == pytest.approx(subsets(hits, 5)[0])  # k = n = 5: any / all of them
        assert item.values["pass_hat_k"] == pytest.approx(subsets(hits, 5)[1])
    assert "pass_rate_met" not in result.item_columns and "pass_rate_met_share" not in result.metrics


def test_single_draw_items_rate_their_one_value_and_unmeasured_items_stay_out():
    plain = SuiteResult("s", "heuristic", {}, (GroupResult("group", (("model", "m"),), {}, 3),),
                        (Item((("id", "a"), ("model", "m")), {"score": 0.7}),
                         Item((("id", "b"), ("model", "m")), {"score": 0.2}),
                         Item((("id", "c"), ("model", "m")), {"score": None})), ("id", "model", "score"))
    result = with_pass_rates(plain, items())
    assert [i.values.get("pass_rate") for i in result.items] == [1.0, 0.0, None]
    assert result.groups[0].metrics["pass_rate_mean"] == 0.5  # (1 + 0) / 2: the unmeasured item is not a fail
    low, _ = proportion_confint(1, 1, method="wilson")
    assert result.items[0].values["pass_rate_low"] == pytest.approx(low)
    nothing = with_pass_rates(plain, ItemsConfig.model_validate({"criterion": {"metric": "other", "min": 0}}))
    assert nothing.metrics["pass_rate_mean"] is None
    assert any(u.metric == "pass_rate_mean" and "other" in u.reason for u in nothing.unmeasured)


def test_what_the_records_cannot_give_is_named_all_at_once():
    short = {**DRAWS, "e": ("m", [0.9, 0.1])}  # two draws only
    found = problems(sampled(short), ItemsConfig.model_validate({"criterion": {"metric": "scor", "min": 0.5},
                                                                 "k": 3}))
    assert [p.field for p in found] == ["criterion.metric", "k"]
    assert "unknown item value 'scor'" in found[0].found and "did you mean 'score'" in found[0].fix
    assert "the fewest: 2, 'id e, model m'" in found[1].expected and "1 of 5 items" in found[1].found
    assert "`k: 2`" in found[1].fix
    text = problems(sampled(), ItemsConfig.model_validate({"criterion": {"metric": "text", "min": 0.5}}))
    assert [p.field for p in text] == ["criterion.metric"] and "no item measured as a number" in text[0].found
    assert problems(sampled(), items(k=5)) == []
    taken = with_pass_rates(sampled(), items())
    assert [p.field for p in problems(taken, items())] == ["criterion"]  # a kind with its own pass_rate values


def test_pass_rate_math_is_exact_at_the_edges():
    result = with_pass_rates(sampled(), items(k=5))
    a = next(i for i in result.items if dict(i.key)["id"] == "a")
    assert a.values["pass_hat_k"] == 1.0 and a.values["pass_rate_low"] < 1.0  # 5 of 5 is not certainty
    d = next(i for i in result.items if dict(i.key)["id"] == "d")
    assert d.values["pass_at_k"] == 0.0 and d.values["pass_rate_low"] == 0.0 and math.isfinite(d.spread["pass_rate"])


def test_a_draw_that_measured_nothing_is_not_counted_as_a_fail():
    rows = (Item((("id", "a"), ("model", "m"), ("sample", "0")), {"score": 0.9}),
            Item((("id", "a"), ("model", "m"), ("sample", "1")), {"score": None}),
            Item((("id", "a"), ("model", "m"), ("sample", "2")), {"score": 0.1}))
    result = collapse(SuiteResult("s", "heuristic", {}, (GroupResult("group", (("model", "m"),), {}, 3),), rows,
                                  ("id", "model", "sample", "score")), lambda metric: None)
    [item] = with_pass_rates(result, items()).items
    assert item.draws == 3 and (item.values["passed"], item.values["pass_rate"]) == (1, 0.5)  # 1 of the 2 measured
    assert item.values["pass_rate_low"] == pytest.approx(proportion_confint(1, 2, method="wilson")[0])
