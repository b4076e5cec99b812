"""How fast a job starts from the images (issue 37 item 6: "pull + model-free run" ≤ 10 s). Prints, never asserts.

Both images -- the default one and the model-free `--target slim` -- are pushed to a loopback registry
(Debian's `docker-registry`, as scripts/release-smoke uses), and for each: its compressed size (the sum of the
registry's layer blobs in its manifest, what a pull transfers) and layers; then `--rounds` times, on a second
dockerd with an empty store (a fresh runner's engine: nothing local, not even the base), the wall time of
`docker pull` and of the model-free example (`run --config examples/generation/gate.yml`, --network none) as the
Actions runner runs it; medians. Needs root for the second engine; without it the figures come from this engine
after removing the image (layers other local images share, such as the base, are then not pulled: it says so).

    python benchmarks/image_pull.py --build [--base IMAGE]     # build both images first (hermetic when
                                                               # ./wheelhouse is filled: scripts/build-wheelhouse)
    python benchmarks/image_pull.py --full TAG --slim TAG      # images already built
    python benchmarks/image_pull.py ... [--rounds 3] [--port 5037]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from figures import cpu_model  # benchmarks/figures.py: run as a script, benchmarks/ is on the path

REPO = Path(__file__).resolve().parent.parent
CONFIG = "examples/generation/gate.yml"
MANIFEST = "application/vnd.docker.distribution.manifest.v2+json"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--build", action="store_true", help="build both images from this checkout first")
    parser.add_argument("--base", default="", help="BASE_IMAGE for --build (default: the Dockerfile's)")
    parser.add_argument("--full", default="llm-quality-gate:bench", help="the default image's tag")
    parser.add_argument("--slim", default="llm-quality-gate:bench-slim", help="the model-free image's tag")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--port", type=int, default=5037, help="the loopback registry's port")
    args = parser.parse_args()
    if subprocess.run(["docker", "info"], capture_output=True).returncode != 0:
        sys.exit("no Docker engine answers (start dockerd; DOCKER_BUILDKIT=0 for Debian's docker.io)")
    if not shutil.which("docker-registry"):
        sys.exit("no docker-registry (apt-get install docker-registry)")
    images = {"full": args.full, "slim": args.slim}
    if args.build:
        build(images, args.base)
    with tempfile.TemporaryDirectory() as work:
        started: list[subprocess.Popen] = []
        try:
            registry = start_registry(Path(work), args.port, started)
            engine, note = clean_engine(Path(work), started)
            print(f"host: {cpu_model()}, {os.cpu_count()} cores; registry 127.0.0.1:{args.port}; pulls into {note}")
            results = {}
            for name, tag in images.items():
                ref = f"localhost:{args.port}/llm-quality-gate:{name}"
                docker(["tag", tag, ref])
                docker(["push", "-q", ref])
                layers = manifest_layers(registry, name)
                size = int(docker(["image", "inspect", "-f", "{{.Size}}", tag]))
                results[name] = measure(engine, ref, Path(work), args.rounds)
                results[name].update(compressed=sum(layers), layers=layers, uncompressed=size)
                docker(["image", "rm", ref])
            report(results, args.rounds)
        finally:
            for process in reversed(started):
                process.terminate()
                process.wait(timeout=60)
    return 0


def build(images: dict[str, str], base: str) -> None:
    """Both images from this checkout, offline from ./wheelhouse when it holds the wheels (as the smoke scripts)."""
    command = ["docker", "build", "-q"]
    if any((REPO / "wheelhouse").glob("torch-*.whl")):
        command += ["--network", "none", "--build-arg", "PIP_ARGS=--no-index --find-links /tmp/wheelhouse"]
    if base:
        command += ["--build-arg", f"BASE_IMAGE={base}"]
    env = {**os.environ, "DOCKER_BUILDKIT": os.environ.get("DOCKER_BUILDKIT", "0")}
    for name, tag in images.items():
        start = time.perf_counter()
        target = ["--target", "slim"] if name == "slim" else []
        subprocess.run([*command, *target, "-t", tag, str(REPO)], check=True, env=env, stdout=subprocess.DEVNULL)
        print(f"built {tag} in {time.perf_counter() - start:.0f} s: {' '.join(command[1:] + target)}")


def start_registry(work: Path, port: int, started: list[subprocess.Popen]) -> str:
    url = f"http://127.0.0.1:{port}"
    if reachable(url):
        sys.exit(f"something already answers on 127.0.0.1:{port}: choose another --port")
    (work / "registry.yml").write_text(f"version: 0.1\nlog:\n  level: error\n  accesslog:\n    disabled: true\n"
                                       f"storage:\n  filesystem:\n    rootdirectory: {work / 'registry'}\n"
                                       f"http:\n  addr: 127.0.0.1:{port}\n")
    started.append(subprocess.Popen(["docker-registry", "serve", str(work / "registry.yml")],
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
    wait(lambda: reachable(url), "the registry")
    return url


def clean_engine(work: Path, started: list[subprocess.Popen]) -> tuple[list[str], str]:
    """A second dockerd with an empty store of its own (root only); else this engine."""
    if os.geteuid() != 0:
        return ["docker"], "this engine (not root: layers shared with local images are not pulled)"
    sock = work / "clean.sock"
    started.append(subprocess.Popen(
        ["dockerd", "--data-root", str(work / "clean-data"), "--exec-root", str(work / "clean-exec"),
         "--pidfile", str(work / "clean.pid"), "-H", f"unix://{sock}", "--bridge=none", "--iptables=false",
         "--ip-masq=false", "--containerd-namespace", "image-pull", "--containerd-plugins-namespace",
         "image-pull-plugins"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
    engine = ["docker", "-H", f"unix://{sock}"]
    wait(lambda: subprocess.run([*engine, "info"], capture_output=True).returncode == 0, "the second dockerd")
    return engine, "a second dockerd with an empty store (a fresh runner)"


def measure(engine: list[str], ref: str, work: Path, rounds: int) -> dict:
    """`rounds` times: remove the image (and every layer), pull it, run the model-free example in it."""
    pulls, runs, codes = [], [], set()
    for _ in range(rounds):
        subprocess.run([*engine, "image", "rm", "-f", ref], capture_output=True)
        subprocess.run([*engine, "image", "prune", "-af"], capture_output=True)
        workspace = work / "workspace"
        shutil.rmtree(workspace, ignore_errors=True)
        shutil.copytree(REPO / "examples", workspace / "examples",
                        ignore=shutil.ignore_patterns("gate-report", ".gate-cache"))
        start = time.perf_counter()
        subprocess.run([*engine, "pull", "-q", ref], check=True, stdout=subprocess.DEVNULL)
        pulled = time.perf_counter()
        done = subprocess.run([*engine, "run", "--rm", "--network", "none", "--workdir", "/github/workspace",
                               "-v", f"{workspace}:/github/workspace", ref, "run", "--config", CONFIG,
                               "--no-publish", "--quiet"], capture_output=True, text=True)
        ran = time.perf_counter()
        if done.returncode != 0:
            sys.stderr.write(done.stdout[-2000:] + done.stderr[-2000:])
        pulls.append(pulled - start)
        runs.append(ran - pulled)
        codes.add(done.returncode)
    return {"pull": pulls, "run": runs, "codes": sorted(codes)}


def report(results: dict[str, dict], rounds: int) -> None:
    print(f"\n{'image':6s} {'compressed':>11s} {'uncompressed':>13s}  layers (MB, compressed, bottom first)")
    for name, r in results.items():
        shown = " ".join(f"{size / 1e6:.1f}" for size in r["layers"] if size > 1000)
        print(f"{name:6s} {r['compressed'] / 1e6:8.1f} MB {r['uncompressed'] / 1e6:10.1f} MB  {shown}")
    print(f"\npull + model-free run ({CONFIG}), median of {rounds} (target ≤ 10 s):")
    for name, r in results.items():
        pull, run = statistics.median(r["pull"]), statistics.median(r["run"])
        total = statistics.median(p + q for p, q in zip(r["pull"], r["run"], strict=True))
        each = ", ".join(f"{p + q:.1f}" for p, q in zip(r["pull"], r["run"], strict=True))
        print(f"  {name:6s} pull {pull:5.1f} s + run {run:4.1f} s = {total:5.1f} s  (rounds: {each}; "
              f"exit {'/'.join(map(str, r['codes']))})")


def manifest_layers(registry: str, tag: str) -> list[int]:
    request = urllib.request.Request(f"{registry}/v2/llm-quality-gate/manifests/{tag}", headers={"Accept": MANIFEST})
    with urllib.request.urlopen(request, timeout=30) as answer:
        return [layer["size"] for layer in json.load(answer)["layers"]]


def docker(arguments: list[str]) -> str:
    return subprocess.run(["docker", *arguments], check=True, capture_output=True, text=True).stdout.strip()


def reachable(url: str) -> bool:
    try:
        urllib.request.urlopen(url + "/v2/", timeout=2).close()
        return True
    except OSError:
        return False


def wait(ready, what: str, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while not ready():
        if time.monotonic() > deadline:
            sys.exit(f"{what} did not start in {seconds:.0f} s")
        time.sleep(0.5)



if __name__ == "__main__":
    sys.exit(main())
