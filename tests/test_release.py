"""The release: one version everywhere, a release workflow with every step a release needs, and the OCI
artifacts (SBOM, provenance) scripts/release-smoke attaches and verifies, checked against a real registry."""

from __future__ import annotations

import datetime
import hashlib
import importlib.util
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import time
from importlib.metadata import version as installed_version
from pathlib import Path

import pytest
import tomllib
import yaml

from gate import __version__
from gate.cli.commands.init import ACTION, init_repository
from tests.conftest import REPO
from tests.support import docs

OWNER = "llm-quality-gate"
IMAGE = f"ghcr.io/{OWNER}/llm-quality-gate"
RELEASE_TEXT = (REPO / ".github" / "workflows" / "release.yml").read_text()
WORKFLOW = yaml.safe_load(RELEASE_TEXT)
JOBS = WORKFLOW["jobs"]
BIN = Path(sys.executable).parent
BUMP = REPO / "scripts" / "bump-version"

spec = importlib.util.spec_from_file_location("oci_attach", REPO / "scripts" / "oci_attach.py")
oci = importlib.util.module_from_spec(spec)
sys.modules["oci_attach"] = oci  # dataclasses look their module up while the class is built
spec.loader.exec_module(oci)


# ---------------------------------------------------------------- one version everywhere

def test_the_version_has_one_source():
    pyproject = tomllib.loads((REPO / "pyproject.toml").read_text())
    assert "version" not in pyproject["project"] and pyproject["project"]["dynamic"] == ["version"]
    assert pyproject["tool"]["hatch"]["version"]["path"] == "gate/__init__.py"
    assert re.fullmatch(r"\d+\.\d+\.\d+", __version__)


def test_every_place_that_names_the_version_names_the_package_version(tmp_path):
    """A release that bumps gate/__init__.py and forgets one of these fails here, not for users."""
    action = yaml.safe_load((REPO / "action.yml").read_text())
    assert action["runs"]["using"] == "docker"
    assert action["runs"]["image"] == f"docker://{IMAGE}:{__version__}"  # the prebuilt release image
    assert f'org.opencontainers.image.version="{__version__}"' in (REPO / "Dockerfile").read_text()
    assert ACTION == f"{OWNER}/llm-quality-gate@v{__version__}"
    readme = docs.text()  # README.md and docs/**/*.md
    used = re.findall(rf"uses: {OWNER}/llm-quality-gate(?:/[\w-]+)?@([\w.+-]*\w)", readme)
    assert len(used) >= 4 and set(used) == {f"v{__version__}"}, used
    assert f"uses: {OWNER}/llm-quality-gate@v{__version__}" in (REPO / "README.md").read_text()
    init_repository(tmp_path)
    gated = {}  # the candidates workflow of the trusted recipe runs no gate
    for workflow in (tmp_path / ".github" / "workflows").glob("*.yml"):
        steps = [s for job in yaml.safe_load(workflow.read_text())["jobs"].values() for s in job.get("steps", [])]
        gated[workflow.name] = {s["uses"] for s in steps if "llm-quality-gate" in str(s.get("uses"))}
    assert gated.pop("llm-quality-gate.yml") == {ACTION} and all(u <= {ACTION} for u in gated.values()), gated
    done = subprocess.run([sys.executable, str(BUMP), "--check"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stdout + done.stderr  # every other place too, and the changelog's section


# Files scripts/bump-version must rewrite, among the others that name the version.
BUMPED = {"gate/__init__.py", "action.yml", "Dockerfile", "README.md", "CHANGELOG.md", "docs/github.md",
          "docs/containers.md", "docs/versioning.md", "docs/report.md", ".github/workflows/quality-gate.yml"}
COPIED = ["gate/__init__.py", "action.yml", "gpu", "Dockerfile", "README.md", "SECURITY.md", "ARCHITECTURE.md",
          "CHANGELOG.md", "docs", "templates", ".github", "scripts/bump-version", "scripts/compile-templates"]


def repository_copy(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    for name in COPIED:
        source, target = REPO / name, root / name
        target.parent.mkdir(parents=True, exist_ok=True)
        if source.is_dir():
            shutil.copytree(source, target, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(source, target)
    return root


def test_bump_version_rewrites_every_place_and_cuts_the_changelog(tmp_path):
    """On a copy of the repository: a bump of __version__ alone fails --check, naming every other place; the
    script rewrites each of them (versions only: nothing else in a file changes), moves [Unreleased] under the
    new version with today's date, keeps the older sections as they were, and --check passes."""
    root = repository_copy(tmp_path)
    script = [sys.executable, str(root / "scripts" / "bump-version")]
    major, minor, _ = __version__.split(".")
    new = f"{major}.{int(minor) + 1}.0"
    files = [p for p in root.rglob("*") if p.is_file() and "scripts" not in p.parts]
    before = {str(p.relative_to(root)): p.read_bytes() for p in files}
    package = root / "gate" / "__init__.py"
    package.write_text(before["gate/__init__.py"].decode().replace(f'"{__version__}"', f'"{new}"'))
    done = subprocess.run([*script, "--check"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 1, done.stdout
    disagree = {line.split(":")[0] for line in done.stdout.splitlines()} | {"gate/__init__.py"}
    assert disagree >= BUMPED, BUMPED - disagree
    assert f"CHANGELOG.md: no '## [{new}]' section" in done.stdout
    package.write_bytes(before["gate/__init__.py"])
    (root / "CHANGELOG.md").write_text(before["CHANGELOG.md"].decode().replace(
        "## [Unreleased]\n", "## [Unreleased]\n\n### Fixed\n- Something users notice.\n", 1))
    log = (root / "CHANGELOG.md").read_text()

    day = datetime.datetime.now(datetime.timezone.utc).date().isoformat()
    done = subprocess.run([*script, new], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.rstrip().endswith(f"every place names {new}")
    after = {name: (root / name).read_bytes() for name in before}
    assert {n for n in before if after[n] != before[n]} == disagree  # every place --check named, and no other
    for name in disagree:
        if name != "CHANGELOG.md":  # only the versions changed
            old_text, new_text = before[name].decode(), after[name].decode()
            assert new not in old_text and new_text.replace(new, __version__) == old_text, name
    head, released = log.split("## [Unreleased]\n", 1)
    notes, older = released.split("\n## [", 1)
    cut = f"{head}## [Unreleased]\n\n## [{new}] - {day}\n\n{notes.strip()}\n\n## [{older}"
    assert after["CHANGELOG.md"].decode() == cut
    assert subprocess.run([*script, "--check"], capture_output=True, timeout=60).returncode == 0
    done = subprocess.run([*script, new], capture_output=True, text=True, timeout=60)  # not after the current one
    assert done.returncode == 1 and f"{new} is not after the current version {new}" in done.stderr
    done = subprocess.run([*script, f"{major}.{int(minor) + 2}.0"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 1 and "'## [Unreleased]' is empty" in done.stderr  # write the notes first
    assert (root / "gate" / "__init__.py").read_bytes() == after["gate/__init__.py"]  # and nothing was touched


# ---------------------------------------------------------------- the release workflow

def steps_using(job: str, action: str) -> list[dict]:
    return [s for s in JOBS[job]["steps"] if str(s.get("uses", "")).split("@")[0] == action]


def test_release_runs_on_version_tags_only_and_is_least_privilege():
    assert WORKFLOW[True] == {"push": {"tags": ["v*.*.*"]}}  # PyYAML reads the key `on` as True
    assert WORKFLOW["permissions"] == {"contents": "read"}
    assert {name: job["permissions"] for name, job in JOBS.items()} == {
        "check": {"contents": "read"},
        "image": {"contents": "read", "packages": "write", "id-token": "write", "attestations": "write"},
        "image-slim": {"contents": "read", "packages": "write", "id-token": "write", "attestations": "write"},
        "dist": {"contents": "read"},
        "pypi": {"id-token": "write"},
        "notes": {"contents": "write"},
        "major-tag": {"contents": "write"},
    }
    for job in JOBS.values():
        for step in job.get("steps", []):
            if "uses" in step:  # pinned to a release's commit (a tag can move), never a branch
                assert re.fullmatch(r"[\w.-]+/[\w.-]+@[0-9a-f]{40}", step["uses"]), step["uses"]
                # ...with the release it is, for people and for Dependabot
                pinned = rf"uses: {re.escape(step['uses'])} +# v\d+(\.\d+){{0,2}}\b"
                assert re.search(pinned, RELEASE_TEXT), step["uses"]


def run_check_step(tmp_path: Path, tag: str, owner: str) -> tuple[subprocess.CompletedProcess, dict]:
    """The `check` job's script, run for real in the repository with the given tag and owner."""
    script = next(s for s in JOBS["check"]["steps"] if s.get("id") == "version")["run"]
    output = tmp_path / "output"
    output.write_text("")
    env = {**os.environ, "TAG": tag, "OWNER": owner, "GITHUB_OUTPUT": str(output),
           "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}"}
    done = subprocess.run(["bash", "-eo", "pipefail", "-c", script], cwd=REPO, env=env, capture_output=True,
                          text=True, timeout=60)
    return done, dict(line.split("=", 1) for line in output.read_text().splitlines())


def test_the_tag_must_be_the_package_version(tmp_path):
    script = next(s for s in JOBS["check"]["steps"] if s.get("id") == "version")["run"]
    assert "python scripts/bump-version --check ||" in script  # every place names the version, before anything
    done, outputs = run_check_step(tmp_path, f"v{__version__}", "LLM-Quality-Gate")
    assert done.returncode == 0, done.stdout + done.stderr
    # GHCR paths are lowercase; the image is the one action.yml runs.
    assert outputs == {"version": __version__, "major": __version__.split(".")[0], "image": IMAGE}
    major, minor, patch = __version__.split(".")
    done, outputs = run_check_step(tmp_path, f"v{major}.{minor}.{int(patch) + 1}", OWNER)
    assert done.returncode == 1 and "is not the package version" in done.stdout and outputs == {}
    done, _ = run_check_step(tmp_path, f"v{__version__}", "someone-else")  # a fork must point action.yml at its image
    assert done.returncode == 1 and "runs.image is" in done.stdout


def test_the_image_is_built_once_with_sbom_and_provenance_then_signed_and_attested_by_digest():
    image = JOBS["image"]
    assert image["needs"] == "check"
    (build,) = steps_using("image", "docker/build-push-action")
    digest = f"${{{{ steps.{build['id']}.outputs.digest }}}}"
    assert build["with"]["push"] is True and build["with"]["sbom"] is True
    assert build["with"]["provenance"] == "mode=max"
    assert build["with"]["tags"].splitlines() == ["${{ needs.check.outputs.image }}:${{ needs.check.outputs.version }}",
                                             "${{ needs.check.outputs.image }}:${{ needs.check.outputs.major }}"]
    assert steps_using("image", "docker/setup-buildx-action") and steps_using("image", "docker/login-action")
    order = [str(s.get("uses", s.get("run"))).split("@")[0] for s in image["steps"]]
    assert order.index("docker/build-push-action") < order.index("sigstore/cosign-installer")
    (sign,) = [s for s in image["steps"] if "cosign sign" in s.get("run", "")]
    assert sign["run"] == 'cosign sign --yes "$IMAGE@$DIGEST"'  # by digest: a tag can move, a digest cannot
    assert sign["env"] == {"IMAGE": "${{ needs.check.outputs.image }}", "DIGEST": digest}
    (attest,) = steps_using("image", "actions/attest-build-provenance")
    assert attest["with"] == {"subject-name": "${{ needs.check.outputs.image }}", "subject-digest": digest,
                              "push-to-registry": True}


def test_the_model_free_image_is_released_beside_it_the_same_way():
    """`--target slim` as <image>:<version>-slim (and :<major>-slim): the image job's steps but for the build's
    target and tags and the summary's tag; signed and attested by its own digest."""
    image, slim = JOBS["image"], JOBS["image-slim"]
    assert slim["needs"] == "check" and slim["outputs"] == image["outputs"]
    (build,) = steps_using("image-slim", "docker/build-push-action")
    assert build["with"]["target"] == "slim" and build["with"]["tags"].splitlines() == [
        "${{ needs.check.outputs.image }}:${{ needs.check.outputs.version }}-slim",
        "${{ needs.check.outputs.image }}:${{ needs.check.outputs.major }}-slim"]
    (pin,) = [s for s in slim["steps"] if s.get("id") == "pin"]
    assert pin["env"]["VERSION"] == "${{ needs.check.outputs.version }}-slim"

    def same(step: dict) -> dict:
        step = {**step, "name": None}
        if "with" in step and "tags" in step["with"]:
            step["with"] = {k: v for k, v in step["with"].items() if k not in ("tags", "target", "build-args")}
        return {**step, "env": {**step.get("env", {}), "VERSION": None}} if "env" in step else step
    assert [same(s) for s in slim["steps"]] == [same(s) for s in image["steps"]]


def test_pypi_is_published_by_trusted_publishing_from_a_job_that_runs_no_repository_code():
    dist, pypi = JOBS["dist"], JOBS["pypi"]
    assert any("python -m build" in s.get("run", "") for s in dist["steps"])
    assert steps_using("dist", "actions/upload-artifact")[0]["with"]["name"] == "dist"
    assert set(pypi["needs"]) == {"check", "dist", "image"}  # only once the image is out
    assert pypi["environment"]["name"] == "pypi"
    assert [str(s.get("uses")).split("@")[0] for s in pypi["steps"]] == ["actions/download-artifact",
                                                                          "pypa/gh-action-pypi-publish"]
    assert not any("with" in s for s in steps_using("pypi", "pypa/gh-action-pypi-publish"))  # no token, no password
    assert "secrets." not in json.dumps(pypi)


def test_the_major_tag_moves_last_to_the_release_commit():
    job = JOBS["major-tag"]
    assert set(job["needs"]) == {"check", "image", "pypi"}
    (step,) = job["steps"]
    assert step["env"]["TAG"] == "v${{ needs.check.outputs.major }}" and step["env"]["SHA"] == "${{ github.sha }}"
    assert "git/refs/tags/$TAG" in step["run"] and "force=true" in step["run"]


def test_the_major_tag_moves_with_the_jobs_token_or_the_job_fails_with_the_command_to_move_it(tmp_path):
    """GitHub refuses a workflow token's ref update that changes a workflow file (no token of a workflow has the
    `workflows` permission) or that a ruleset forbids: the job fails, and its summary and error give the command
    docs/versioning.md documents. The step runs here with gh faked: v1 moved, created, then refused."""
    (step,) = JOBS["major-tag"]["steps"]
    assert step["env"]["VERSION"] == "${{ needs.check.outputs.version }}"
    gh = tmp_path / "bin" / "gh"
    gh.parent.mkdir()
    gh.write_text('#!/bin/bash\necho "$*" >>"$LOG"\n'
                  'if [ "$1 $2" = "api repos/o/r/git/ref/tags/v1" ]; then [ -n "$EXISTS" ]; exit; fi\n'
                  'if [ -n "$REFUSE" ]; then echo \'{"message":"refusing to allow a GitHub App to create or update '
                  'workflow without workflows permission","status":"403"}\'; echo "gh: (HTTP 403)" >&2; exit 1; fi\n')
    gh.chmod(0o755)
    sha = "c0ffee" * 6 + "c0ff"
    command = "git fetch origin tag v1.2.3 && git push --force origin 'v1.2.3^{commit}:refs/tags/v1'"
    for case in ("exists", "absent", "refused"):
        log, summary = tmp_path / f"{case}.log", tmp_path / f"{case}.md"
        env = {**os.environ, "PATH": f"{gh.parent}:{os.environ['PATH']}", "GH_TOKEN": "t", "REPOSITORY": "o/r",
               "TAG": "v1", "VERSION": "1.2.3", "SHA": sha, "LOG": str(log), "GITHUB_STEP_SUMMARY": str(summary),
               "EXISTS": "" if case == "absent" else "1", "REFUSE": "1" if case == "refused" else ""}
        done = subprocess.run(["bash", "-eo", "pipefail", "-c", step["run"]], env=env, capture_output=True,
                              text=True, timeout=30)
        calls = log.read_text().splitlines()
        if case == "exists":
            assert done.returncode == 0 and f"v1 -> {sha}" in done.stdout, done.stdout + done.stderr
            assert calls[1] == f"api --method PATCH repos/o/r/git/refs/tags/v1 -f sha={sha} -F force=true"
        elif case == "absent":
            assert done.returncode == 0, done.stdout + done.stderr
            assert calls[1] == f"api --method POST repos/o/r/git/refs -f ref=refs/tags/v1 -f sha={sha}"
        else:
            assert done.returncode == 1 and not summary.read_text().count("v1 ->")
            assert "refusing to allow a GitHub App" in done.stdout and "HTTP 403" in done.stdout
            (error,) = [line for line in done.stdout.splitlines() if line.startswith("::error::")]
            assert error.endswith(f"Move it by hand: {command}")
            assert f"```\n{command}\n```" in summary.read_text()
    generic = command.replace("1.2.3", "X.Y.Z").replace("tags/v1'", "tags/vX'")
    assert generic in (REPO / "docs" / "versioning.md").read_text()  # the manual step, documented


def test_the_release_names_the_digest_users_pin_in_the_summary_an_output_and_the_release_notes(tmp_path):
    """The image job writes `<image>@sha256:…` to its summary and output `pinned`; the notes job puts it in the
    GitHub release (created, or added to a maintainer's notes once). Both scripts run here, gh faked."""
    digest = "sha256:" + "ab" * 32
    (pin,) = [s for s in JOBS["image"]["steps"] if s.get("id") == "pin"]
    assert pin["env"]["DIGEST"] == "${{ steps.build.outputs.digest }}"
    assert JOBS["image"]["outputs"]["pinned"] == "${{ steps.pin.outputs.pinned }}"
    env = {**os.environ, "IMAGE": IMAGE, "VERSION": __version__, "DIGEST": digest,
           "GITHUB_OUTPUT": str(tmp_path / "output"), "GITHUB_STEP_SUMMARY": str(tmp_path / "summary")}
    done = subprocess.run(["bash", "-e", "-c", pin["run"]], env=env, capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "output").read_text() == f"pinned={IMAGE}@{digest}\n"
    assert f"\n{IMAGE}@{digest}\n" in (tmp_path / "summary").read_text()
    done = subprocess.run(["bash", "-e", "-c", pin["run"]], env={**env, "DIGEST": ""}, capture_output=True, text=True)
    assert done.returncode == 1 and "no digest" in done.stdout

    notes = JOBS["notes"]
    assert set(notes["needs"]) == {"check", "image", "image-slim", "pypi"} and "major-tag" in JOBS
    (step,) = notes["steps"]
    assert step["env"]["PINNED"] == "${{ needs.image.outputs.pinned }}"
    assert step["env"]["PINNED_SLIM"] == "${{ needs.image-slim.outputs.pinned }}"
    slim = "sha256:" + "cd" * 32
    gh = tmp_path / "bin" / "gh"
    gh.parent.mkdir()
    gh.write_text('#!/bin/bash\necho "$*" >>"$LOG"\n'
                  'if [ "$1 $2" = "release view" ]; then [ -f "$BODY" ] && cat "$BODY"; [ -f "$BODY" ]; exit; fi\n'
                  'for a; do [ "$prev" = --notes-file ] && cp "$a" "$BODY"; prev=$a; done\n')
    gh.chmod(0o755)
    env = {**os.environ, "PATH": f"{gh.parent}:{os.environ['PATH']}", "RUNNER_TEMP": str(tmp_path), "TAG": "v1.2.3",
           "IMAGE": IMAGE, "VERSION": "1.2.3", "PINNED": f"{IMAGE}@{digest}", "PINNED_SLIM": f"{IMAGE}@{slim}",
           "LOG": str(tmp_path / "log"),
           "BODY": str(tmp_path / "body")}
    for run in range(3):  # no release yet, then the release it made, then a maintainer's notes
        if run == 2:
            (tmp_path / "body").write_text("Hand-written notes.\n")
        done = subprocess.run(["bash", "-e", "-c", step["run"]], env=env, capture_output=True, text=True, timeout=30)
        assert done.returncode == 0, done.stderr
        body = (tmp_path / "body").read_text()
        assert body.count(f"{IMAGE}@{digest}") == 1 and f"`{IMAGE}:1.2.3`" in body
        assert body.count(f"{IMAGE}@{slim}") == 1 and f"`{IMAGE}:1.2.3-slim`" in body
    assert body.startswith("Hand-written notes.\n")
    done = subprocess.run(["bash", "-e", "-c", step["run"]], env={**env, "PINNED_SLIM": ""}, capture_output=True,
                          text=True, timeout=30)
    assert done.returncode == 1 and "no image digest from the image-slim job" in done.stdout
    calls = (tmp_path / "log").read_text().splitlines()
    assert [c.split()[1] for c in calls if not c.startswith("release view")] == ["create", "edit"], calls
    assert "--verify-tag" in calls[1]


# ---------------------------------------------------------------- the OCI artifacts (scripts/oci_attach.py)

def test_the_empty_config_and_cosign_tags_are_the_spec_values():
    assert oci.EMPTY_CONFIG["digest"] == "sha256:" + hashlib.sha256(b"{}").hexdigest()
    digest = "sha256:" + "ab" * 32
    assert oci.cosign_tag(digest, "sbom") == "sha256-" + "ab" * 32 + ".sbom"
    assert oci.cosign_tag(digest) == "sha256-" + "ab" * 32
    with pytest.raises(ValueError):
        oci.cosign_tag("latest")
    assert oci.purl_pypi("Sentence_Transformers", "2.13.0+cpu") == "pkg:pypi/sentence-transformers@2.13.0%2Bcpu"


def test_the_sbom_lists_what_pip_finds_installed_at_the_installed_versions():
    """From a real `pip inspect` of this environment; versions checked against importlib.metadata."""
    done = subprocess.run([sys.executable, "-m", "pip", "inspect", "--local"], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    digest = "sha256:" + "0" * 64
    bom = oci.cyclonedx("localhost:5000/llm-quality-gate:1", digest, json.loads(done.stdout),
                        [("libc6", "2.36-9+deb12u13", "amd64")])
    assert bom["bomFormat"] == "CycloneDX" and bom["specVersion"] == "1.5"
    assert bom["metadata"]["component"]["bom-ref"].endswith(f"@{digest}")
    by_purl = {c["purl"]: c for c in bom["components"]}
    for name in ("torch", "pyyaml", "llm-quality-gate"):
        assert oci.purl_pypi(name, installed_version(name)) in by_purl, name
    assert "pkg:deb/debian/libc6@2.36-9%2Bdeb12u13?arch=amd64" in by_purl


@pytest.fixture
def registry(tmp_path):
    """Debian's docker-registry (the distribution 2.8 server) on a free loopback port, stopped by PID."""
    binary = shutil.which("docker-registry")
    if binary is None:
        pytest.skip("docker-registry is not installed (apt-get install docker-registry)")
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    config = tmp_path / "registry.yml"
    config.write_text(f"version: 0.1\nlog: {{level: error, accesslog: {{disabled: true}}}}\n"
                      f"storage: {{filesystem: {{rootdirectory: {tmp_path / 'data'}}}}}\n"
                      f"http: {{addr: '127.0.0.1:{port}'}}\n")
    process = subprocess.Popen([binary, "serve", str(config)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(100):
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                    break
            except OSError:
                time.sleep(0.05)
        yield base
    finally:
        process.terminate()
        process.wait(timeout=10)


def push_image(registry: object, marker: bytes) -> str:
    """A small but well-formed Docker v2 image (what `docker push` stores); returns its digest."""
    config = json.dumps({"architecture": "amd64", "os": "linux", "marker": marker.decode()}).encode()
    layer = b"layer " + marker
    registry.put_blob(config)
    registry.put_blob(layer)
    media = "application/vnd.docker.distribution.manifest.v2+json"
    body = json.dumps({"schemaVersion": 2, "mediaType": media,
                       "config": {"mediaType": "application/vnd.docker.container.image.v1+json",
                                  "size": len(config), "digest": oci.sha256(config)},
                       "layers": [{"mediaType": "application/vnd.docker.image.rootfs.diff.tar.gzip",
                                   "size": len(layer), "digest": oci.sha256(layer)}]}).encode()
    registry.put_manifest(marker.decode(), body, media)
    return oci.sha256(body)


def attach_both(registry: object, digest: str, torch: str = "2.13.0+cpu") -> None:
    inspect = {"installed": [{"metadata": {"name": "torch", "version": torch}},
                             {"metadata": {"name": "llm_quality_gate", "version": __version__}}]}
    sbom = oci.cyclonedx("localhost/llm-quality-gate:x", digest, inspect)
    oci.attach(registry, digest, "sbom", json.dumps(sbom).encode())
    oci.attach(registry, digest, "att", json.dumps(oci.provenance("localhost/llm-quality-gate", digest, {})).encode())


EXPECTED = {"torch": "2.13.0+cpu", "llm-quality-gate": __version__}


def test_attached_artifacts_verify_against_a_real_registry(registry):
    reg = oci.Registry(registry, "llm-quality-gate")
    digest = push_image(reg, b"one")
    attach_both(reg, digest)
    lines = oci.verify(reg, digest, EXPECTED)
    assert f"sbom: torch {EXPECTED['torch']}" in lines and lines[-1].startswith("att: in-toto SLSA v1")
    # Both are listed by the referrers tag schema's index, and a second attach replaces, not adds.
    attach_both(reg, digest)
    index = json.loads(reg.manifest(oci.cosign_tag(digest))[1])
    assert sorted(m["artifactType"] for m in index["manifests"]) == ["application/vnd.cyclonedx+json",
                                                                    "application/vnd.in-toto+json"]
    with pytest.raises(oci.VerifyError, match="torch is 2.13.0\\+cpu, expected 2.12.0"):
        oci.verify(reg, digest, {"torch": "2.12.0"})
    with pytest.raises(oci.VerifyError, match="numpy is missing"):
        oci.verify(reg, digest, {"numpy": "2.0.0"})
    # The command line: exit 0 and the lines, or exit 1 with the reason.
    cli = [sys.executable, str(REPO / "scripts" / "oci_attach.py")]
    done = subprocess.run([*cli, "verify", registry, "llm-quality-gate", digest, "torch=2.13.0+cpu"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and "sbom: torch 2.13.0+cpu" in done.stdout, done.stderr
    done = subprocess.run([*cli, "verify", registry, "llm-quality-gate", digest, "torch=1"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 1 and done.stderr.startswith("FAIL: sbom: torch")


def test_an_sbom_of_another_image_under_this_images_tag_fails(registry):
    """Someone copies image B's SBOM manifest to image A's cosign tag: its subject gives it away."""
    reg = oci.Registry(registry, "llm-quality-gate")
    one, two = push_image(reg, b"one"), push_image(reg, b"two")
    attach_both(reg, one)
    attach_both(reg, two)
    _, foreign = reg.manifest(oci.cosign_tag(two, "sbom"))
    reg.put_manifest(oci.cosign_tag(one, "sbom"), foreign, oci.OCI_MANIFEST)
    with pytest.raises(oci.VerifyError, match="subject is .* not the image"):
        oci.verify(reg, one, EXPECTED)


def test_an_artifact_missing_from_the_referrers_fails(registry):
    reg = oci.Registry(registry, "llm-quality-gate")
    digest = push_image(reg, b"one")
    attach_both(reg, digest)
    empty = json.dumps({"schemaVersion": 2, "mediaType": oci.OCI_INDEX, "manifests": []}).encode()
    reg.put_manifest(oci.cosign_tag(digest), empty, oci.OCI_INDEX)
    with pytest.raises(oci.VerifyError, match="not among the image's referrers"):
        oci.verify(reg, digest, EXPECTED)


def test_new_layers_are_the_ones_the_old_image_lacks(registry):
    reg = oci.Registry(registry, "llm-quality-gate")
    one, two = push_image(reg, b"one"), push_image(reg, b"two")
    assert [layer["digest"] for layer in oci.new_layers(reg, one, two)] == [oci.sha256(b"layer two")]
    assert oci.new_layers(reg, one, one) == []


# ---------------------------------------------------------------- the scripts, and the end-to-end rehearsal

@pytest.mark.parametrize("script", ["release-smoke", "oci_attach.py", "bump-version"])
def test_scripts_are_executable_and_lint_clean(script):
    path = REPO / "scripts" / script
    assert path.stat().st_mode & 0o111, f"{script} must be executable"
    if "python" in path.read_text().splitlines()[0]:
        done = subprocess.run([str(BIN / "ruff"), "check", "--quiet", str(path)], capture_output=True, text=True)
    else:
        assert subprocess.run(["bash", "-n", str(path)], capture_output=True).returncode == 0
        if not shutil.which("shellcheck"):
            return
        done = subprocess.run(["shellcheck", str(path)], capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.skipif(os.environ.get("LLM_GATE_DOCKER_TESTS") != "1",
                    reason="builds and runs the image (~10 min): set LLM_GATE_DOCKER_TESTS=1")
def test_release_smoke_end_to_end():
    """build -> push to a local registry -> pull by digest -> run as the action -> SBOM/provenance verified."""
    done = subprocess.run([str(REPO / "scripts" / "release-smoke")], capture_output=True, text=True, timeout=3600,
                          env={**os.environ, "PYTHON": sys.executable})
    if done.returncode == 77:
        pytest.skip("no Docker engine can run here: " + done.stderr.strip().splitlines()[-1])
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
    assert "pull -> verdict:" in done.stdout and "sbom: torch " in done.stdout
