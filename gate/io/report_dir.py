"""A report directory holds one run's report set, whole: never a mix of two runs.

Writing report files one by one into the output directory let two runs interleave (publish.json of one run,
report.json of the other) and left an earlier run's files behind (a `--suite` run after a full run kept the
other suites' folders). So `report_directory` stages the whole set in a fresh sibling directory and swaps it
in at the end, under an exclusive lock, so that concurrent runs into one directory serialise:

- the lock is an flock on the parent directory itself (no lock file to litter the workspace);
- staging: `<parent>/.<name>.tmp-<pid>-<random>`, on the same filesystem, so the swap is two renames;
- the swap renames the old directory aside (`.<name>.old-…`), renames the staged one in, carries over
  what was not part of the old report set (`shards/`: the inputs of `llm-gate merge`; anything a user put
  there), then deletes the old set;
- the gate marks a directory it wrote with MARKER, listing the entries of its report set: only those are
  ever deleted. A directory without the marker that holds anything but `shards/` is not the gate's to
  replace, and is refused (exit 2), never deleted;
- an exception or signal before the swap leaves the previous report as it was and removes the staging
  directory; a crash (SIGKILL) leaves a stale sibling that the next run, under the lock, cleans up — restoring
  the previous report if the crash fell between the two renames, and rescuing carried-over entries.

Part of `gate.io`.
"""

from __future__ import annotations

import errno
import json
import os
import re
import secrets
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from gate.errors import GateError, InputError, Problem, RuntimeFailure
from gate.io.write import staged_writes, sync_directory, write_text_atomic

try:  # POSIX; elsewhere concurrent runs are not serialised
    import fcntl
except ImportError:  # pragma: no cover
    fcntl = None  # type: ignore[assignment]

MARKER = ".llm-gate-report"
KEPT = frozenset({"shards"})  # written by `llm-gate run --shard` for `llm-gate merge`: inputs, not a report
_FIX = "choose another --output-dir (or report.output_dir in gate.yml), e.g. gate-report"


def check_report_directory(output_dir: Path, *, field: str = "report.output_dir", file: str | None = None,
                           workspace: Path | None = None) -> None:
    """Raise the InputError `report_directory` would raise, before a run spends its time measuring."""
    target = _target(output_dir, field, file, workspace)
    try:
        _require_writable(target)
        _carried(target, field, file)
    except OSError as exc:
        raise _cannot_write(target, exc, field, file) from None


def _require_writable(target: Path) -> None:
    """The report set is staged beside `target` (or `target`'s missing parents are created): its nearest existing
    directory must be writable — checked up front, so a read-only mount or a container user without rights is
    refused before the model work, not after it."""
    existing = next(p for p in (target.parent, *target.parent.parents) if os.path.lexists(p))
    if not os.access(existing, os.W_OK | os.X_OK):
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(existing))


def _cannot_write(target: Path, exc: OSError, field: str, file: str | None) -> GateError:
    """The output directory cannot be created or written: exit 2 naming it, the user the gate runs as, and the fix
    (a permission or a read-only filesystem is the setup's to change); another failure (a full disk) exits 3."""
    where = exc.filename or target
    uid = f"uid {os.geteuid()}" if hasattr(os, "geteuid") else "the gate's user"
    if exc.errno not in (errno.EACCES, errno.EPERM, errno.EROFS):
        return RuntimeFailure(f"cannot write the report directory {target}: {exc.strerror or exc} ({where})",
                              fix=f"free space or fix the filesystem at {where}, or {_FIX}")
    return InputError("the report directory cannot be written", [Problem(
        file=file, field=field, expected=f"a report directory that {uid} may create and write",
        found=f"{exc.strerror or 'permission denied'} at {where} for {uid}",
        fix=f"make {where} writable for {uid} (chown or chmod it; in a container, run it as the owner of the "
            f"workspace, e.g. `docker run --user $(id -u):$(id -g)`), or {_FIX}")])


@contextmanager
def report_directory(output_dir: Path, *, field: str = "report.output_dir", file: str | None = None,
                     workspace: Path | None = None) -> Iterator[Path]:
    """Yield a fresh staging directory; when the block ends normally, it becomes `output_dir` atomically.

    `field`/`file` locate the setting in errors; `workspace` (the repository root) is never a report directory."""
    target = _target(output_dir, field, file, workspace)
    in_block = False  # an OSError of the caller's block is the caller's; one of ours names the directory
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        with _locked(target.parent):
            _recover(target)
            carried = _carried(target, field, file)
            staging = target.parent / f".{target.name}.tmp-{os.getpid()}-{secrets.token_hex(4)}"
            staging.mkdir()
            try:
                in_block = True
                with staged_writes():
                    yield staging
                in_block = False
                _swap(staging, target, carried, field, file)
            except BaseException:
                shutil.rmtree(staging, ignore_errors=True)
                raise
    except OSError as exc:
        if in_block:
            raise
        raise _cannot_write(target, exc, field, file) from None


def _target(output_dir: Path, field: str, file: str | None, workspace: Path | None) -> Path:
    """The real directory (a symlinked output_dir is replaced where it points, and keeps pointing there)."""
    target = Path(os.path.realpath(output_dir))
    here = Path.cwd().resolve()
    roots = [("the working directory", here)] + ([("the workspace", workspace.resolve())] if workspace else [])
    for what, root in roots:
        if target == root or target in root.parents:
            raise InputError("the report directory would replace the workspace", [Problem(
                file=file, field=field, expected="a directory of its own for the report files",
                found=f"{str(output_dir)!r}, which is {what} {root}" if target == root
                else f"{str(output_dir)!r}, which contains {what} {root}", fix=_FIX)])
    return target


def _entries(directory: Path) -> set[str]:
    return {entry.name for entry in os.scandir(directory)}


def _report_set(directory: Path) -> set[str] | None:
    """The entries the gate's marker lists, with the marker; None: no valid marker (not the gate's directory)."""
    try:
        data = json.loads((directory / MARKER).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    names = data.get("entries") if isinstance(data, dict) else None
    if not isinstance(names, list) or not all(isinstance(n, str) and n and "/" not in n for n in names):
        return None
    return {*names, MARKER}


LEGACY_FILES = frozenset({"report.md", "report.json", "report.html", "junit.xml", "publish.json"})


def _legacy_report_set(directory: Path, entries: set[str]) -> set[str] | None:
    """A report directory an llm-gate before the marker wrote: its report.json names its suites, and every entry is
    one of the report files, a suite's folder or `shards/`. Anything else there keeps it foreign (never deleted)."""
    try:
        data = json.loads((directory / "report.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    suites = data.get("suites") if isinstance(data, dict) and "schema" in data else None
    if not isinstance(suites, list):
        return None
    names = {s.get("name") for s in suites if isinstance(s, dict) and isinstance(s.get("name"), str)}
    known = {e for e in entries if e in LEGACY_FILES or (e in names and (directory / e).is_dir())}
    return known if not entries - known - KEPT else None


def _carried(target: Path, field: str, file: str | None) -> list[str]:
    """The entries of the existing directory that are not its report set: they move into the new one."""
    if not os.path.lexists(target):
        return []
    if not target.is_dir():
        raise InputError("the report directory is a file", [Problem(
            file=file, field=field, expected="a directory (or nothing) at the report path",
            found=f"a file at {target}", fix=f"move the file away or {_FIX}")])
    entries = _entries(target)
    old = _report_set(target)
    if old is None:
        old = _legacy_report_set(target, entries)
    if old is not None:
        return sorted(entries - old)
    foreign = sorted(entries - KEPT)
    if foreign:
        shown = ", ".join(foreign[:5]) + (f" and {len(foreign) - 5} more" if len(foreign) > 5 else "")
        raise InputError("the report directory holds files the gate did not write", [Problem(
            file=file, field=field, expected=f"an empty directory or one the gate wrote (it has a {MARKER} file)",
            found=f"{target} holding {shown}, without {MARKER}",
            fix=f"{_FIX}; or, if these are an older llm-gate's reports, delete the directory once — the gate "
                "replaces a report set as a whole and will not delete files it did not write")])
    return sorted(entries)


def _swap(staging: Path, target: Path, carried: list[str], field: str, file: str | None) -> None:
    names = sorted(_entries(staging))
    clash = sorted(set(carried) & set(names))
    if clash:
        raise InputError("the report would replace files the gate did not write", [Problem(
            file=file, field=field, expected="report file and suite names that are free in the report directory",
            found=f"{', '.join(clash)} in {target}, not written by the gate",
            fix=f"move {', '.join(clash)} out of {target}, or {_FIX}")])
    write_text_atomic(staging / MARKER, json.dumps({"written_by": "llm-quality-gate", "entries": names}) + "\n")
    if not os.path.lexists(target):
        os.rename(staging, target)
        sync_directory(target.parent)
        return
    old = target.parent / f".{target.name}.old-{os.getpid()}-{secrets.token_hex(4)}"
    os.rename(target, old)
    os.rename(staging, target)  # from here on, the directory is this run's report set
    sync_directory(target.parent)
    _rescue(old, target)
    shutil.rmtree(old, ignore_errors=True)


def _rescue(old: Path, target: Path) -> None:
    """Move what a former report directory held besides its report set (shards/, a user's files) into target."""
    report = _report_set(old) or _legacy_report_set(old, _entries(old)) or {MARKER}
    for name in sorted(_entries(old) - report):
        if not os.path.lexists(target / name):
            os.rename(old / name, target / name)


def _recover(target: Path) -> None:
    """Clean up after a run killed mid-write (called under the lock: no other run is staging)."""
    prefix = f".{target.name}."
    stale = sorted(p for p in target.parent.iterdir()
                   if p.name.startswith((prefix + "tmp-", prefix + "old-")) and p.is_dir() and not p.is_symlink())
    olds = [p for p in stale if p.name.startswith(prefix + "old-")]
    if olds and not os.path.lexists(target):  # killed between the two renames: the previous set is intact
        os.rename(olds[-1], target)
        olds.pop()
    for path in stale:
        if path in olds:
            target.mkdir(exist_ok=True)
            _rescue(path, target)
        if path.exists():
            shutil.rmtree(path, ignore_errors=True)


@contextmanager
def _locked(directory: Path) -> Iterator[None]:
    fd = os.open(directory, os.O_RDONLY)
    try:
        if fcntl is not None:
            fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing releases the lock


def folder_name(name: str) -> str:
    """A model name or date as one safe path component ("org/model" -> "org_model")."""
    safe = re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("._") or "_"
    return safe[:100]
