"""What a run posts under (check name, comment title), what it covered (its scope) and when it comments (pure)."""

from __future__ import annotations

import dataclasses

import pytest

from gate.config import CommentWhen
from gate.judge import CheckVerdict, GateVerdict, Verdict
from gate.judge.types import Change, CheckResult, Op, SuiteVerdict, UnmeasuredPolicy
from gate.publish.bundle import (
    SCOPES,
    PublishBundle,
    comment_body,
    comment_wanted,
    derived_name,
    marker,
    posted_scope,
    run_scope,
    significant_change,
)
from gate.results import SuiteResult

SHA = "0123456789abcdef0123456789abcdef01234567"


def test_an_unfiltered_run_keeps_the_gate_name_so_required_checks_keep_working():
    assert derived_name("quality", (), ()) == "quality"
    assert run_scope((), (), skipped=False) == "full"


def test_a_filtered_run_names_its_filter_sorted_and_deduplicated():
    assert derived_name("quality", ("rubric",), ()) == "quality (suites: rubric)"
    assert derived_name("quality", ("b", "a", "b"), ("m",)) == "quality (suites: a, b; models: m)"
    assert derived_name("quality", ("a", "b"), ("m",)) == derived_name("quality", ("b", "a"), ("m",))
    assert derived_name("quality", (), ("gpt-4o", "llama")) == "quality (models: gpt-4o, llama)"
    assert run_scope(("a",), (), skipped=False) == run_scope((), ("m",), skipped=False) == "filtered"


def test_a_long_filter_stays_short_and_distinct():
    many = tuple(f"suite-number-{i}" for i in range(12))
    name = derived_name("quality", many, ())
    assert len(name) < 60 and name.startswith("quality (suites: 12 selected, ")
    assert name != derived_name("quality", many[:-1] + ("another-suite-name",), ())


def test_a_skipped_run_keeps_the_gate_name_and_says_it_was_skipped():
    assert derived_name("quality", ("nomatch*",), (), skipped=True) == "quality"
    assert run_scope(("nomatch*",), (), skipped=True) == "skipped"


def bundle(verdict="pass", changed=None, scope="full", **fields) -> PublishBundle:
    return PublishBundle(gate="quality", verdict=verdict, conclusion="success", title="t", summary="s",
                         comment="## body", head_sha=SHA, pull_request=7, changed=changed, scope=scope, **fields)


@pytest.mark.parametrize(("when", "verdict", "changed", "wanted"), [
    (CommentWhen.ALWAYS, "pass", False, True),
    (CommentWhen.ALWAYS, "skipped", False, True),
    (CommentWhen.OFF, "fail", True, False),
    (CommentWhen.FAILURES, "pass", True, False),
    (CommentWhen.FAILURES, "skipped", False, False),
    (CommentWhen.FAILURES, "fail", False, True),
    (CommentWhen.FAILURES, "warn", False, True),
    (CommentWhen.FAILURES, "inconclusive", False, True),
    (CommentWhen.CHANGES, "pass", False, False),  # a clean pass, nothing significant: quiet
    (CommentWhen.CHANGES, "skipped", False, False),
    (CommentWhen.CHANGES, "pass", True, True),  # a significant change (an improvement, say)
    (CommentWhen.CHANGES, "pass", None, True),  # unknown (a bundle from before the field): comment
    (CommentWhen.CHANGES, "warn", False, True),
    (CommentWhen.CHANGES, "inconclusive", False, True),
])
def test_when_a_new_comment_is_wanted(when, verdict, changed, wanted):
    assert comment_wanted(bundle(verdict, changed), when) is wanted


def test_failures_and_changes_share_one_idea_of_a_result_that_is_not_clean():
    """`failures` comments exactly on fail, warn and inconclusive; `changes` on those too, whatever `changed` says,
    and with nothing significant stays quiet on the rest: the two modes cannot disagree about a verdict."""
    for verdict in Verdict:
        not_clean = verdict.value in ("fail", "warn", "inconclusive")
        assert comment_wanted(bundle(verdict.value, True), CommentWhen.FAILURES) is not_clean
        assert comment_wanted(bundle(verdict.value, False), CommentWhen.CHANGES) is not_clean
        assert comment_wanted(bundle(verdict.value, True), CommentWhen.CHANGES) is True


@pytest.mark.parametrize("scope", SCOPES)
@pytest.mark.parametrize("sha", [SHA, None])
def test_every_scope_round_trips_through_the_comments_hidden_line(scope, sha):
    """The parser's scopes are SCOPES themselves: whatever scope a run writes, the next run reads back."""
    body = comment_body(dataclasses.replace(bundle(scope=scope), head_sha=sha))
    assert posted_scope(body) == (scope, sha)


def judged(*changes: Change | None) -> GateVerdict:
    checks = tuple(CheckResult(metric="m", scope="suite", key=(), op=Op.MIN, fail=0.0, warn=None, value=0.0,
                               verdict=CheckVerdict.PASS, change=c) for c in changes)
    suite = SuiteVerdict(SuiteResult("s", "heuristic", {}, (), (), ()), checks, Verdict.PASS, UnmeasuredPolicy.WARN)
    return GateVerdict("g", Verdict.PASS, (suite,), None)


def change(p_value: float | None, significant: bool | None, tested: bool = True) -> Change:
    return Change(baseline=1.0, current=1.0, bound="max_decrease", tested=tested, p_value=p_value, alpha=0.05,
                  significant=significant)


def test_a_significant_change_either_way_is_a_change():
    assert not significant_change(judged(None, change(0.5, False)))
    assert significant_change(judged(change(0.01, True)))  # bad side, within its bound
    assert significant_change(judged(change(0.99, False)))  # good side: 1 - 0.99 = 0.01 <= 0.05, an improvement
    assert not significant_change(judged(change(0.94, False)))  # good side p 0.06: not significant
    assert not significant_change(judged(change(0.999, None, tested=False)))  # untested: not a finding


def test_the_comment_records_scope_and_commit_under_the_titles_marker():
    body = comment_body(bundle(scope="filtered", comment_title="quality (suites: a)"))
    assert body.startswith(marker("quality (suites: a)") + f"\n<!-- llm-quality-gate:v1:filtered {SHA} -->\n## body")
    assert posted_scope(body) == ("filtered", SHA)
    assert posted_scope(marker("quality") + "\n## an old comment") is None


def test_names_default_to_the_gate_and_old_bundles_still_read():
    old = bundle().to_dict()
    for key in ("check_name", "comment_title", "scope", "changed"):
        del old[key]
    read = PublishBundle.from_dict(old)
    assert (read.check_name, read.comment_title, read.scope, read.changed) == ("quality", "quality", "full", None)
    new = bundle(scope="skipped", changed=False, check_name="c", comment_title="t")
    assert PublishBundle.from_dict(new.to_dict()) == new
    with pytest.raises(ValueError, match="scope 'partial'"):
        PublishBundle.from_dict({**new.to_dict(), "scope": "partial"})
