"""Cassettes: replay makes no live call, a miss names the command that records it, record-missing records only
misses, refresh re-records, and a file round-trips byte for byte."""

from __future__ import annotations

from types import MappingProxyType

import pytest

from gate.errors import InputError
from gate.generate.cassettes import Cassette, Mode, call_key, cassette_path
from gate.generate.providers.types import Message, Parameters, Request, Response, Usage
from gate.generate.runner import FAILED, RECORDED, REPLAYED, generate
from tests.generate.fake_openai import MODEL_VERSION
from tests.generate.helpers import ask, provider

COMMAND = "llm-gate generate --suite qa --cassettes record-missing"


def _cassette(tmp_path) -> Cassette:
    return Cassette.load(cassette_path(tmp_path, "qa", "openai", "gpt-test"), "openai", "gpt-test")


def _requests(n: int = 3) -> list[Request]:
    return [ask(f"question {i}", sample=s, logprobs=True) for i in range(n) for s in range(2)]


def test_record_then_replay_makes_no_live_call(tmp_path, openai_server):
    first = generate(_requests(), _cassette(tmp_path), Mode.RECORD_MISSING, provider=provider(openai_server),
                     record_command=COMMAND)
    assert {o.source for o in first.outcomes} == {RECORDED} and openai_server.count == 6
    again = generate(_requests(), _cassette(tmp_path), Mode.REPLAY, provider=provider(openai_server),
                     record_command=COMMAND)
    assert openai_server.count == 6
    assert [o.source for o in again.outcomes] == [REPLAYED] * 6
    assert [o.response for o in again.outcomes] == [o.response for o in first.outcomes]
    assert again.summary.replayed == 6 and again.summary.recorded == 0
    assert again.fingerprint.model_versions == (MODEL_VERSION,)
    # a fork's run: no provider at all
    assert generate(_requests(), _cassette(tmp_path), Mode.REPLAY, provider=None, record_command=COMMAND).outcomes


def test_a_miss_in_replay_is_a_located_error_naming_the_command_and_no_call_is_made(tmp_path, openai_server):
    generate(_requests(1), _cassette(tmp_path), Mode.RECORD_MISSING, provider=provider(openai_server),
             record_command=COMMAND)
    wanted = [ask(f"new question {i}") for i in range(8)] + _requests(1)
    with pytest.raises(InputError) as caught:
        generate(wanted, _cassette(tmp_path), Mode.REPLAY, provider=provider(openai_server), record_command=COMMAND)
    text = str(caught.value)
    assert caught.value.exit_code == 2
    assert "replay: 8 calls are not in the cassette" in text and COMMAND in text
    assert "'new question 0'" in text and "'new question 4'" in text and "'new question 5'" not in text
    assert "3 more calls without one" in text and "qa/openai__gpt-test.jsonl" in text
    assert openai_server.count == 2


def test_record_missing_records_only_the_misses(tmp_path, openai_server):
    generate(_requests(2), _cassette(tmp_path), Mode.RECORD_MISSING, provider=provider(openai_server),
             record_command=COMMAND)
    assert openai_server.count == 4
    run = generate(_requests(3), _cassette(tmp_path), Mode.RECORD_MISSING, provider=provider(openai_server),
                   record_command=COMMAND)
    assert openai_server.count == 6
    assert [o.source for o in run.outcomes] == [REPLAYED] * 4 + [RECORDED] * 2
    assert len(_cassette(tmp_path)) == 6


def test_a_failed_call_is_unmeasured_not_recorded_and_the_next_run_resumes(tmp_path, openai_server):
    openai_server.script += [("500",)] * 2
    run = generate([ask("a")], _cassette(tmp_path), Mode.RECORD_MISSING, provider=provider(openai_server, retries=1),
                   record_command=COMMAND)
    assert run.outcomes[0].source == FAILED and run.outcomes[0].response is None and "500" in run.outcomes[0].reason
    assert run.summary.failed == 1 and "unmeasured" in run.summary.notes[0]
    assert len(_cassette(tmp_path)) == 0
    resumed = generate([ask("a")], _cassette(tmp_path), Mode.RECORD_MISSING, provider=provider(openai_server),
                       record_command=COMMAND)
    assert resumed.outcomes[0].source == RECORDED


def test_refresh_re_records_everything_and_drops_what_is_no_longer_asked(tmp_path, openai_server):
    generate(_requests(3), _cassette(tmp_path), Mode.RECORD_MISSING, provider=provider(openai_server),
             record_command=COMMAND)
    run = generate(_requests(2), _cassette(tmp_path), Mode.REFRESH, provider=provider(openai_server),
                   record_command=COMMAND)
    assert openai_server.count == 6 + 4 and {o.source for o in run.outcomes} == {RECORDED}
    assert len(_cassette(tmp_path)) == 4


HOSTILE = "fin\u202eeludom\u2028<script>@here\x00\ufeff \U0001f600 ÄÖ Привет \ud800"


def test_a_cassette_round_trips_byte_identically_and_escapes_what_would_hide_in_a_diff(tmp_path):
    cassette = _cassette(tmp_path)
    for i, text in enumerate(["plain", HOSTILE, "line\nbreak\r\n\ttab"]):
        request = Request("gpt-test", (Message("system", "be brief"), Message("user", text)),
                          parameters=Parameters(temperature=0.7, top_p=0.9, seed=3, stop=("\n\n",), logprobs=True),
                          sample=i)
        cassette.put(request, Response(text, (("a", -0.1), ("b", -1e-9)), Usage(3, 2), 0.1234, "v1", "stop", 1.5e-05,
                                       MappingProxyType({"retrieved_ids": ["d1", "d2"], "nested": {"x": [1.5, None]}})))
    cassette.save()
    first = cassette.path.read_bytes()
    again = Cassette.load(cassette.path, "openai", "gpt-test")
    again.save()
    assert cassette.path.read_bytes() == first
    text = first.decode("utf-8")
    assert "\u202e" not in text and "\u2028" not in text and "\ufeff" not in text and "\x00" not in text
    assert "\\u202e" in text and "Привет" in text and "ÄÖ" in text and "\U0001f600" in text
    assert text.count("\n") == 4  # the header and one line per entry
    lines = text.splitlines()
    assert lines[0].startswith('{"format": "llm-gate-cassette", "version": 1')
    keys = [line.split('"key": "')[1][:32] for line in lines[1:]]
    assert keys == sorted(keys)
    assert again.get(Request("gpt-test", (Message("system", "be brief"), Message("user", HOSTILE)),
                             parameters=Parameters(temperature=0.7, top_p=0.9, seed=3, stop=("\n\n",),
                                                   logprobs=True), sample=1)).text == HOSTILE


def test_changing_one_prompt_changes_one_line(tmp_path, openai_server):
    generate(_requests(4), _cassette(tmp_path), Mode.RECORD_MISSING, provider=provider(openai_server),
             record_command=COMMAND)
    before = set(_cassette(tmp_path).path.read_text().splitlines())
    changed = _requests(4)
    changed[0] = ask("question 0, reworded", sample=0, logprobs=True)
    generate(changed, _cassette(tmp_path), Mode.REFRESH, provider=provider(openai_server), record_command=COMMAND)
    after = set(_cassette(tmp_path).path.read_text().splitlines())
    # refresh re-records all (new latencies): compare without them
    strip = {line.split('"latency_s"')[0] for line in before}, {line.split('"latency_s"')[0] for line in after}
    assert len(strip[0] - strip[1]) == 1 and len(strip[1] - strip[0]) == 1


def test_an_edited_entry_or_a_broken_line_is_a_located_error(tmp_path, openai_server):
    generate(_requests(1), _cassette(tmp_path), Mode.RECORD_MISSING, provider=provider(openai_server),
             record_command=COMMAND)
    path = _cassette(tmp_path).path
    lines = path.read_text().splitlines()
    lines[1] = lines[1].replace("question 0", "question X")
    lines.append("{not json")
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(InputError) as caught:
        _cassette(tmp_path)
    text = str(caught.value)
    assert ":2" in text and "edited by hand" in text and ":4" in text


def test_the_key_covers_provider_model_parameters_prompt_and_sample():
    base = ask("q")
    keys = {call_key("openai", base), call_key("other", base), call_key("openai", ask("q", sample=1)),
            call_key("openai", ask("q", temperature=0.5)), call_key("openai", ask("q2")),
            call_key("openai", Request("gpt-other", base.messages)),
            call_key("openai", ask("q", response_format="json_object"))}
    assert len(keys) == 7 and call_key("openai", ask("q")) == call_key("openai", base)


def test_a_parameter_left_unset_keeps_the_keys_of_cassettes_recorded_before_it_existed():
    """The key of a plain request, pinned: a new parameter enters the key only when set (`Parameters.canonical`),
    so committed cassettes keep replaying after an upgrade."""
    assert call_key("openai", ask("q")) == "e28bc037ad25be37898d70b2a986748a"


def test_a_json_mode_call_round_trips_through_its_cassette(tmp_path, openai_server):
    request = ask("answer in JSON", response_format="json_object")
    generate([request], _cassette(tmp_path), Mode.RECORD_MISSING, provider=provider(openai_server),
             record_command=COMMAND)
    assert openai_server.calls[0]["body"]["response_format"] == {"type": "json_object"}
    again = _cassette(tmp_path)
    assert again.get(request) is not None and again.get(ask("answer in JSON")) is None
    assert '"response_format": "json_object"' in again.path.read_text()


def test_a_response_too_large_for_a_cassette_is_a_failure(tmp_path, openai_server, monkeypatch):
    import gate.generate.runner as runner

    monkeypatch.setattr(runner, "ENTRY_BYTES", 200)
    run = generate([ask("a" * 300)], _cassette(tmp_path), Mode.RECORD_MISSING, provider=provider(openai_server),
                   record_command=COMMAND)
    assert run.outcomes[0].source == FAILED and "over the 200 limit" in run.outcomes[0].reason
