"""The plan (dry run) and the hard budget: calls past it are not sent, the run stops cleanly."""

from __future__ import annotations

import pytest

from gate.errors import InputError
from gate.generate.budget import Budget, Price
from gate.generate.cassettes import Cassette, Mode, cassette_path
from gate.generate.plan import make_plan, worst_cost
from gate.generate.runner import NOT_SENT, RECORDED, generate
from tests.generate.helpers import ask, provider

COMMAND = "llm-gate generate --cassettes record-missing"
PRICE = Price(prompt_per_million=1000.0, completion_per_million=2000.0)


def _cassette(tmp_path) -> Cassette:
    return Cassette.load(cassette_path(tmp_path, "s", "openai", "gpt-test"), "openai", "gpt-test")


def test_a_call_budget_stops_cleanly(tmp_path, openai_server):
    requests = [ask(f"q{i}", max_tokens=10) for i in range(10)]
    run = generate(requests, _cassette(tmp_path), Mode.RECORD_MISSING, provider=provider(openai_server, concurrency=1),
                   record_command=COMMAND, budget=Budget(max_calls=3))
    assert openai_server.count == 3
    assert [o.source for o in run.outcomes] == [RECORDED] * 3 + [NOT_SENT] * 7
    assert all(o.response is None and "budget (3 calls)" in (o.reason or "") for o in run.outcomes[3:])
    assert run.summary.stopped_by_budget and run.summary.not_sent == 7 and "not sent" in run.summary.notes[0]
    assert len(_cassette(tmp_path)) == 3  # what was recorded is kept; the next run resumes


def test_a_dollar_budget_never_admits_a_call_that_could_exceed_it(tmp_path, openai_server):
    requests = [ask(f"q{i}", max_tokens=10) for i in range(10)]
    worst = worst_cost(requests[0], PRICE)
    run = generate(requests, _cassette(tmp_path), Mode.RECORD_MISSING, provider=provider(openai_server, concurrency=8),
                   record_command=COMMAND, budget=Budget(max_usd=worst * 4.5), price=PRICE)
    summary = run.summary
    assert summary.cost_usd is not None and summary.cost_usd <= worst * 4.5
    assert summary.recorded >= 4 and summary.recorded + summary.not_sent == 10
    assert summary.prompt_tokens > 0 and summary.completion_tokens == 2 * summary.recorded  # "echo: qN"
    assert summary.latency_p50_s is not None and summary.latency_p95_s is not None


def test_a_dollar_budget_without_a_price_is_an_input_error(tmp_path, openai_server):
    with pytest.raises(InputError, match="needs a price"):
        generate([ask("q")], _cassette(tmp_path), Mode.RECORD_MISSING, provider=provider(openai_server),
                 record_command=COMMAND, budget=Budget(max_usd=1.0))
    assert openai_server.count == 0


def test_the_dry_run_plan_counts_calls_tokens_and_cost_without_calling(tmp_path, openai_server):
    recorded = [ask("q0", max_tokens=100), ask("q1", max_tokens=100)]
    generate(recorded, _cassette(tmp_path), Mode.RECORD_MISSING, provider=provider(openai_server),
             record_command=COMMAND)
    requests = [ask(f"q{i}", max_tokens=100) for i in range(5)] + [ask("q0", max_tokens=100)]  # a duplicate is one call
    plan = make_plan(requests, "openai", _cassette(tmp_path), Mode.RECORD_MISSING, price=PRICE,
                     budget=Budget(max_calls=2))
    assert (plan.calls, plan.replayed, plan.live, plan.completion_tokens) == (5, 2, 3, 300)
    assert plan.cost_usd == pytest.approx(sum(worst_cost(r, PRICE) for r in requests[2:5]))
    assert not plan.within_budget
    text = plan.render("s", "openai", "gpt-test")
    assert "5 calls" in text and "3 live" in text and "not enough" in text
    replay = make_plan(requests, "openai", _cassette(tmp_path), Mode.REPLAY)
    assert (replay.live, replay.missing) == (0, 3) and "3 missing" in replay.render("s", "openai", "gpt-test")
    assert openai_server.count == 2
