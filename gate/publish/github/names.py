"""Whether `llm-gate run` may post its check run under a name that gate.yml chose (`publish.check_name`, or the
gate's `name`), for `gate.publish.github.client.GitHubPublisher`.

gate.yml can come from the pull request under test. Branch protection reads a required check by its name only,
so a gate.yml naming its check `tests` would post a success beside (or in place of) CI's failing `tests`. A name
the workflow chose (`check_name`) is trusted and never asked about here. A name gate.yml chose is refused when

- another producer already carries it on the head commit: a check run the gate did not make (another app, another
  workflow job: no `external_id` of the gate's, `checks.OURS`) or a commit status of another tool (`Checks.foreign`);
- or it is a required status check of the base branch, as far as the token can see (rulesets,
  `GET /repos/{o}/{r}/rules/branches/{branch}`, readable with read access; classic protection where readable;
  403/404: cannot see), and the base branch's own gate.yml does not name its check so. A required check that the
  gate itself fills is the normal case: it is the base branch's gate name. When the base branch's gate.yml cannot
  be read, that cannot be known: the name is let through with a note, and only a workflow that pins `check_name`
  (every recipe does) is sure.

The required check's `integration_id` (the app it must come from) is not compared: the gate posts with the
workflow's token, often as the same app as CI's jobs.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from gate.errors import PublishError
from gate.publish.github.checks import Checks
from gate.publish.github.contents import Contents

DEFAULT_GATE_NAME = "llm-quality-gate"  # GateConfig.name's default: a base gate.yml without `name` posts this


@dataclass(frozen=True)
class ChosenName:
    """The check run's name came from gate.yml, not the workflow: where to look before posting under it."""

    base_branch: str | None  # the branch the change targets; None: the repository's default branch
    gate_path: str | None  # gate.yml's path in the repository; None: unknown (the base's gate name is not known)


@dataclass(frozen=True)
class NameCheck:
    refusal: str | None  # why nothing may be posted under the name, found on GitHub (the step fails); None: none
    notes: tuple[str, ...] = ()  # what could not be checked (warnings, not refusals)
    # GitHub could not say what else carries the name: nothing is posted under it, a publishing problem like any
    # other (a warning; GitHub never decides the exit code), since what is there cannot be told
    unverified: bool = False


class Names:
    """The guard for a check-run name gate.yml chose; one per GitHubPublisher, sharing its repository, its
    retried `call`, its check runs (one listing of a name serves this guard and the scope rule) and contents."""

    def __init__(self, repo: Any, call: Callable[[Callable[[], Any]], Any], checks: Checks, contents: Contents):
        self._repo, self._call, self._checks, self._contents = repo, call, checks, contents

    def check(self, name: str, head_sha: str, chosen: ChosenName) -> NameCheck:
        where = f"commit {head_sha[:7]}"
        try:
            others = self._checks.foreign(name, head_sha)
        except PublishError as exc:
            return NameCheck(None, (f"could not create the check run: GitHub could not say what else on {where} is "
                                    f"named `{name}` ({exc}), and a name gate.yml chose is posted only when nothing "
                                    "else carries it",), unverified=True)
        if others:
            more = f" and {len(others) - 1} more" if len(others) > 1 else ""
            return NameCheck(f"`{name}` is also the name of {others[0]}{more} on {where}: posted under it, the gate's "
                             "verdict would stand beside (or in place of) that check's")
        try:
            branch = chosen.base_branch or self._call(lambda: str(self._repo.default_branch))
        except PublishError as exc:
            return NameCheck(None, (f"`{name}` was not checked against the required checks: the repository's "
                                    f"default branch could not be read ({exc})",))
        try:
            required, seen = self.required(branch)
        except PublishError as exc:
            return NameCheck(None, (f"could not create the check run: GitHub could not say whether `{name}` is a "
                                    f"required check of {branch} ({exc}), and a name gate.yml chose is posted only "
                                    "when it is no other required check's",), unverified=True)
        if name not in required:
            return NameCheck(None)
        base = self._base_gate_name(branch, chosen.gate_path)
        if base is None:
            return NameCheck(None, (f"`{name}` is a required check of {branch} ({seen}) and the gate.yml on {branch} "
                                    "could not be read to tell whether it is the gate's own: pin `check_name` on the "
                                    "gate's workflow step",))
        if base == name:
            return NameCheck(None)
        return NameCheck(f"`{name}` is a required check of {branch} ({seen}), and the gate on {branch} posts as "
                         f"`{base}`: this gate.yml would fill another required check")

    def required(self, branch: str) -> tuple[frozenset[str], str]:
        """The required status checks of `branch` the token can see (rulesets, then classic protection), and where
        they were seen; what it may not read (403, 404) counts as none."""
        found: dict[str, str] = {}
        url = f"{self._repo.url}/rules/branches/{branch}"
        for rule in self._get(url) or []:
            if isinstance(rule, dict) and rule.get("type") == "required_status_checks":
                for check in (rule.get("parameters") or {}).get("required_status_checks") or []:
                    if isinstance(check, dict) and isinstance(check.get("context"), str):
                        found.setdefault(check["context"], "a ruleset")
        classic = self._get(f"{self._repo.url}/branches/{branch}/protection/required_status_checks")
        if isinstance(classic, dict):
            contexts = [c for c in classic.get("contexts") or [] if isinstance(c, str)]
            contexts += [c["context"] for c in classic.get("checks") or []
                         if isinstance(c, dict) and isinstance(c.get("context"), str)]
            for context in contexts:
                found.setdefault(context, "branch protection")
        return frozenset(found), ", ".join(sorted(set(found.values())))

    def _get(self, url: str) -> Any:
        """The JSON at `url`; None when the token may not see it or it does not exist (403, 404)."""
        try:
            return self._call(lambda: self._repo._requester.requestJsonAndCheck("GET", url)[1])
        except PublishError as exc:
            if exc.status in (403, 404) and not exc.rate_limited:
                return None
            raise

    def _base_gate_name(self, branch: str, path: str | None) -> str | None:
        """The check name of the gate on `branch` (its gate.yml's `publish.check_name`, else `name`); None when
        its gate.yml cannot be read. A branch without that gate.yml has no gate: a name no gate posts."""
        import yaml

        if path is None:
            return None
        try:
            text = self._contents.read_branch_file(branch, path)
        except PublishError:
            return None
        if text is None:
            return ""
        try:
            data = yaml.safe_load(text)
        except (yaml.YAMLError, UnicodeDecodeError):
            return None
        if not isinstance(data, dict):
            return None
        publish = data.get("publish")
        name = (publish.get("check_name") if isinstance(publish, dict) else None) or data.get("name") \
            or DEFAULT_GATE_NAME
        return name if isinstance(name, str) else None
