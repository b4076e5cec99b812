"""The GitHub Actions runtime: step outputs as the runner parses them, the job summary, workflow commands."""

from __future__ import annotations

from pathlib import Path

from gate.publish.actions import command, write_outputs, write_summary


def parse_output_file(text: str) -> dict[str, str]:
    """The runner's parser for GITHUB_OUTPUT (actions/runner FileCommandManager, Linux line endings).

    `NAME=VALUE` lines, or `NAME<<DELIMITER` followed by the value's lines and a line that is exactly
    the delimiter; the value is the text in between, without the newline before the delimiter.
    """
    outputs: dict[str, str] = {}
    lines = text.split("\n")
    assert lines[-1] == "", "the file must end with a newline"
    index = 0
    while index < len(lines) - 1:
        line = lines[index]
        index += 1
        if not line:
            continue
        equals, heredoc = line.find("="), line.find("<<")
        if equals >= 0 and (heredoc < 0 or equals < heredoc):
            key, value = line.split("=", 1)
        else:
            assert heredoc >= 0, f"invalid format {line!r}"
            key, delimiter = line.split("<<", 1)
            body = []
            while lines[index] != delimiter:
                assert index < len(lines) - 1, f"matching delimiter not found {delimiter!r}"
                body.append(lines[index])
                index += 1
            index += 1
            value = "\n".join(body)
        assert key, "an output needs a name"
        outputs[key] = value
    return outputs


def test_single_line_outputs(tmp_path):
    path = tmp_path / "github_output"
    write_outputs(path, {"verdict": "fail", "report-path": "gate-report/report.md", "failed": "3", "empty": "",
                         "with-equals": "a=b<<c"})
    assert path.read_text() == ("verdict=fail\nreport-path=gate-report/report.md\nfailed=3\nempty=\n"
                                "with-equals=a=b<<c\n")
    assert parse_output_file(path.read_text()) == {"verdict": "fail", "report-path": "gate-report/report.md",
                                                   "failed": "3", "empty": "", "with-equals": "a=b<<c"}


def test_multi_line_outputs_use_a_random_heredoc_delimiter(tmp_path):
    path = tmp_path / "github_output"
    summary = "## Gate failed\n\n| metric | value |\n|---|---|\n| f1 | 0.71 |\nEOF\n"
    write_outputs(path, {"summary": summary, "verdict": "fail", "two": "a\nb"})
    text = path.read_text()
    assert parse_output_file(text) == {"summary": summary, "verdict": "fail", "two": "a\nb"}
    delimiters = [line.split("<<", 1)[1] for line in text.splitlines() if "<<" in line]
    assert len(delimiters) == 2 and delimiters[0] != delimiters[1]
    assert all(len(d) > 20 and d not in summary for d in delimiters)
    write_outputs(path, {"two": "x\ny"})  # a second step appends; the later value wins, as on the runner
    again = path.read_text()
    assert again.startswith(text)
    assert parse_output_file(again)["two"] == "x\ny"
    assert [line.split("<<", 1)[1] for line in again.splitlines() if "<<" in line][2] not in delimiters


def test_outputs_without_a_file_are_skipped(tmp_path):
    write_outputs(None, {"verdict": "pass"})
    write_summary(None, "# x")
    assert list(tmp_path.iterdir()) == []


def test_summary_appends(tmp_path):
    path = tmp_path / "nested" / "step_summary"
    write_summary(path, "# First gate\n")
    write_summary(path, "# Second gate")  # a newline is added so the next append starts on its own line
    assert path.read_text() == "# First gate\n# Second gate\n"


def test_summary_keeps_what_was_there(tmp_path):
    path = tmp_path / "step_summary"
    path.write_text("earlier step\n")
    write_summary(path, "| a | b |\n")
    assert path.read_text() == "earlier step\n| a | b |\n"


def test_command_escapes_data_and_properties():
    line = command("error", "msg\nnext", file="a:b.jsonl", line=3, title="F1 0.71 < 0.80, gpt-4o")
    assert line == "::error file=a%3Ab.jsonl,line=3,title=F1 0.71 < 0.80%2C gpt-4o::msg%0Anext"


def test_command_escapes_percent_first_and_carriage_returns():
    assert command("warning", "100%\r\nsure: yes, ok") == "::warning::100%25%0D%0Asure: yes, ok"
    assert command("notice", "x", title="50%: a,b\nc") == "::notice title=50%25%3A a%2Cb%0Ac::x"
    assert command("error", "%0A literal") == "::error::%250A literal"


def test_command_properties_are_optional_and_ordered():
    assert command("error", "m", line=0) == "::error line=0::m"
    assert command("error", "m", title="t") == "::error title=t::m"
    assert command("error", "m", file=str(Path("outputs") / "x.jsonl")) == "::error file=outputs/x.jsonl::m"
