"""Hostile environments and input sizes (issue 31, item 7), at their real sizes: what `llm-gate` answers and what it
costs.

    .venv/bin/python benchmarks/hostile_inputs.py [--cases index,fifo,line,records] [--command validate|run]
                                                  [--timeout 120] [--memory-gb 8] [--src DIR]

Each case builds its input in a fresh temporary directory -- a git checkout with a small heuristic suite (no model)
and one hostile thing -- and runs `python -m gate <command> --config gate.yml` there as a child, under a wall-clock
timeout and an address-space limit (so that a reader that grows without bound ends in MemoryError, not in the
machine's swap). It prints, per case: the input, its size, the exit code, wall seconds, the peak RSS of the child
and the git it ran (`os.wait4`'s rusage: the largest of them), the gate's own peak (its VmHWM, polled every 50 ms)
and the first line of its error output.

  index    a version-4 .git/index crafted so its names grow with the square of its entries (1.5 MB, 6 MB), with
           git on PATH (git refuses the index and the gate reads it itself) and without git
  fifo     a FIFO at .git/index, without git and with git on PATH (git itself blocks on it until its timeout)
  line     one JSONL record on a single line: 100 MiB, 1000 MiB (past the line limit) and 1 GiB (past the file limit)
  records  100 k and 1 M tiny JSONL records (~70 bytes each)

`--src DIR` runs the gate from another source tree (e.g. an export of an older commit: `git archive <commit> |
tar -x -C DIR`) to compare. Figures, not a test: nothing here fails a build.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import resource
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GATE_YML = "version: 1\nsuites:\n  rubric:\n    kind: heuristic\n    records: [records.jsonl]\n"
RECORD = '{"model": "m%d", "category": "coding", "prompt_id": "P%d", "response": "x"}\n'


@dataclass(frozen=True)
class Case:
    name: str
    build: Callable[[Path], str]  # writes the hostile input into the checkout; returns its size in words
    git: bool = True  # git on PATH


def tiny_records(root: Path, count: int) -> int:
    with (root / "records.jsonl").open("w") as out:
        for start in range(0, count, 10_000):
            out.write("".join(RECORD % (i // 1000, i % 1000) for i in range(start, min(count, start + 10_000))))
    return (root / "records.jsonl").stat().st_size


def crafted_index(size: int, append: int = 64) -> bytes:
    """Entries that each keep the whole previous name and append `append` bytes (version 4's prefix compression):
    the names add up to ~size²/512 bytes."""
    count = (size - 32) // (64 + append + 1)
    body = bytearray()
    for i in range(count):  # stat fields and object name (zeros), flags (the name's length), strip 0, suffix, NUL
        suffix = (b".gate-cache/" if i == 0 else b"") + b"a" * append
        length = len(b".gate-cache/") + append * (i + 1)
        body += bytes(60) + struct.pack(">H", min(length, 0xFFF)) + b"\0" + suffix + b"\0"
    data = struct.pack(">4sII", b"DIRC", 4, count) + bytes(body)
    return data + hashlib.sha1(data).digest()


def mb(size: int) -> str:
    return f"{size / 1e6:,.1f} MB"


def index_case(size: int) -> Callable[[Path], str]:
    def build(root: Path) -> str:
        tiny_records(root, 10)
        data = crafted_index(size)
        (root / ".git/index").write_bytes(data)
        return mb(len(data))
    return build


def fifo_case(root: Path) -> str:
    tiny_records(root, 10)
    (root / ".git/index").unlink(missing_ok=True)
    os.mkfifo(root / ".git/index")
    return "a FIFO"


def line_case(size: int) -> Callable[[Path], str]:
    def build(root: Path) -> str:
        with (root / "records.jsonl").open("w") as out:
            out.write('{"model": "m", "category": "coding", "prompt_id": "P1", "response": "')
            block = "x" * (1 << 20)
            for _ in range(size >> 20):
                out.write(block)
            out.write('"}\n')
        return mb((root / "records.jsonl").stat().st_size)
    return build


def records_case(count: int) -> Callable[[Path], str]:
    def build(root: Path) -> str:
        return f"{count:,} records, {mb(tiny_records(root, count))}"
    return build


CASES = {
    "index": [Case("v4 index, git on PATH", index_case(1_500_000)),
              Case("v4 index, git on PATH", index_case(6_000_000)),
              Case("v4 index, no git", index_case(1_500_000), git=False)],
    "fifo": [Case("FIFO .git/index, no git", fifo_case, git=False), Case("FIFO .git/index, git on PATH", fifo_case)],
    "line": [Case("one JSONL line", line_case(100 << 20)), Case("one JSONL line", line_case(1000 << 20)),
             Case("one JSONL line", line_case(1 << 30))],
    "records": [Case("tiny JSONL records", records_case(100_000)), Case("tiny JSONL records", records_case(1_000_000))],
}


def checkout(root: Path) -> None:
    (root / "gate.yml").write_text(GATE_YML)
    subprocess.run(["git", "init", "-q", str(root)], check=True)


def run_case(case: Case, command: str, timeout: float, memory: int,
             src: Path) -> tuple[str, str, float, int, int, str]:
    with tempfile.TemporaryDirectory(prefix="hostile-") as directory:
        root = Path(directory)
        checkout(root)
        size = case.build(root)
        path = os.environ.get("PATH", "") if case.git else str(root / "no-git-here")
        env = {**os.environ, "PATH": path, "PYTHONPATH": str(src), "HF_HUB_OFFLINE": "1", "LLM_GATE_DEBUG": ""}
        argv = [sys.executable, "-m", "gate", command, "--config", "gate.yml"]
        if command == "run":
            argv += ["--output-dir", str(root / "report")]

        def limit() -> None:
            resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
            os.setsid()

        started = time.perf_counter()
        with open(root / "stderr.txt", "wb") as err:
            child = subprocess.Popen(argv, cwd=root, env=env, stdout=subprocess.DEVNULL, stderr=err,
                                     preexec_fn=limit)  # noqa: PLW1509 (a fresh child, before exec)
            code: int | str = "?"
            usage = None
            own = 0  # the gate's own peak (VmHWM), without git's: polled, its last value before the exit
            while True:
                own = max(own, _high_water(child.pid))
                pid, status, usage = os.wait4(child.pid, os.WNOHANG)
                if pid:
                    code = os.waitstatus_to_exitcode(status)
                    break
                if time.perf_counter() - started > timeout:
                    os.killpg(child.pid, signal.SIGKILL)
                    _, _, usage = os.wait4(child.pid, 0)
                    code = f"timeout {timeout:.0f}s"
                    break
                time.sleep(0.05)
            child.returncode = -1  # reaped here
        wall = time.perf_counter() - started
        lines = [line.strip() for line in (root / "stderr.txt").read_text(errors="replace").splitlines()]
        first = next((line for line in lines if line and not line.startswith("[")), "")
        if "FIFO" not in first and any("FIFO" in line or "at most" in line for line in lines):
            first = next(line for line in lines if "FIFO" in line or "at most" in line)
        return size, str(code), wall, usage.ru_maxrss if usage else 0, own, first[:150]


def _high_water(pid: int) -> int:
    """A live process's peak resident set so far, in KiB (Linux's VmHWM); 0 where it cannot be read."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return 0
    return next((int(line.split()[1]) for line in status.splitlines() if line.startswith("VmHWM:")), 0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cases", default=",".join(CASES))
    parser.add_argument("--command", default="validate", choices=["validate", "run"])
    parser.add_argument("--timeout", type=float, default=120.0)
    parser.add_argument("--memory-gb", type=float, default=8.0)
    parser.add_argument("--src", type=Path, default=ROOT, help="the source tree to run the gate from")
    args = parser.parse_args()
    if shutil.which("git") is None:
        sys.exit("needs git (to initialise the checkouts)")
    print(f"llm-gate {args.command} from {args.src}; limits: {args.timeout:.0f} s, {args.memory_gb:g} GB of "
          "address space")
    print(f"{'input':<28} {'size':>26} {'exit':>12} {'wall s':>8} {'peak RSS MB':>12} {'gate alone':>11}  "
          "first error line")
    for group in args.cases.split(","):
        for case in CASES[group]:
            size, code, wall, rss, own, first = run_case(case, args.command, args.timeout,
                                                         int(args.memory_gb * (1 << 30)), args.src.resolve())
            print(f"{case.name:<28} {size:>26} {code:>12} {wall:8.1f} {rss / 1024:12,.0f} {own / 1024:11,.0f}  "
                  f"{first}", flush=True)


if __name__ == "__main__":
    main()
