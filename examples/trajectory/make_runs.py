"""Write the trajectory example's agent runs and bless its snapshot from five re-runs, offline and seeded.

    HF_HUB_OFFLINE=1 python examples/trajectory/make_runs.py     # rewrites runs/, base/ and baselines/metrics/

A travel agent runs six tasks three times each (samples 0-2), as two models: `agent-v2` logs its tool calls as
JSON Lines (runs/agent-v2.jsonl); `agent-v2-mini` is instrumented with OpenTelemetry and its GenAI spans are
exported by the collector as OTLP JSON (runs/agent-v2-mini.otlp.jsonl). The main branch's agent, `agent-v1`, ran
each task once (base/agent-v1.jsonl): every run's tool sequence is compared with it. The mini model sometimes
books a flight without checking availability first and once passes a hotel stay's nights as text: its runs break
the task's expectations while the harness still reports success. Re-runs differ the way a model at temperature
> 0 does: other search wording, now and then one retried search. The snapshot is blessed from five such re-runs
(`llm-gate baseline bless`, then `--add` four times) in a temporary copy, as the recipe of docs/baselines.md says.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
SAMPLES, RERUNS = 3, 5
START = 1_735_689_600  # 2025-01-01T00:00:00Z: the traces' clock
WORDING = ["weather in {city}", "{city} weather today", "current weather {city}", "what is the weather in {city}"]


def task_calls(task: str, model: str, sample: int, rng: random.Random) -> tuple[list[tuple[str, dict]], str]:
    """The run's tool calls and final answer: the task's path, with this model's habits and a re-run's noise."""
    mini = model == "agent-v2-mini"
    retry = model != "agent-v1" and rng.random() < 0.15  # a retried search: an equivalent path
    if task == "weather-paris":
        query = {"query": rng.choice(WORDING).format(city="Paris") if model != "agent-v1" else "weather in Paris"}
        calls = [("web_search", query)] * (2 if retry else 1) + [("get_weather", {"city": "Paris", "unit": "C"})]
        return calls, "It is 18 °C and sunny in Paris."
    if task == "flight-lisbon":
        search = ("search_flights", {"origin": "BER", "destination": "LIS", "date": "2025-03-14"})
        check = ("check_availability", {"flight_id": "TP541"})
        book = ("book_flight", {"flight_id": "TP541", "passenger": "A. Traveller"})
        skips = mini and sample in (1, 2)  # books without checking: the harness still sees a booking
        return [search] * (2 if retry else 1) + ([] if skips else [check]) + [book], "Booked TP541 on 14 March."
    if task == "hotel-rome":
        nights = "3" if mini and sample == 0 else 3  # the nights as text: the tool's schema says integer
        return [("search_hotels", {"city": "Rome", "nights": nights, "max_price": 180}),
                ("book_hotel", {"hotel_id": "H-2231", "nights": nights})], "Booked Hotel Aurora for 3 nights."
    if task == "convert-budget":
        return [("convert_currency", {"amount": 100, "from": "USD", "to": "EUR"})], "100 USD is 92.40 EUR."
    if task == "itinerary-email":
        return [("get_booking", {"booking_id": "B-77"}),
                ("send_email", {"to": "traveller@example.com", "subject": "Your itinerary"})], "Sent."
    query = {"query": rng.choice(WORDING).format(city="Oslo").replace("weather", "museums")}
    if model == "agent-v1":
        query = {"query": "museums in Oslo"}
    return [("web_search", query)] * (2 if retry else 1), "The Munch Museum and the Viking Ship Museum."


TASKS = ["weather-paris", "flight-lisbon", "hotel-rome", "convert-budget", "itinerary-email", "museums-oslo"]


def logged_run(task: str, sample: int, rng: random.Random) -> dict:
    calls, answer = task_calls(task, "agent-v2", sample, rng)
    steps = [{"tool": tool, "arguments": arguments, "result": "ok", "tokens": rng.randint(380, 460),
              "latency": round(rng.uniform(0.4, 1.4), 3)} for tool, arguments in calls]
    return {"task_id": task, "model": "agent-v2", "sample": sample, "steps": steps, "final_answer": answer,
            "success": True, "cost": round(sum(s["tokens"] for s in steps) * 6e-6, 6)}


def value(v: object) -> dict:
    if isinstance(v, bool):
        return {"boolValue": v}
    if isinstance(v, int):
        return {"intValue": str(v)}
    if isinstance(v, float):
        return {"doubleValue": v}
    return {"stringValue": str(v)}


def span(trace: str, span_id: str, name: str, start: float, end: float, **attributes: object) -> dict:
    return {"traceId": trace, "spanId": span_id, **({"parentSpanId": "00000000000000aa"} if span_id != "aa" else {}),
            "name": name, "kind": 1, "startTimeUnixNano": str(int(start * 1e9)), "endTimeUnixNano": str(int(end * 1e9)),
            "attributes": [{"key": k, "value": value(v)} for k, v in attributes.items()]}


def traced_run(task: str, sample: int, rng: random.Random, run: int) -> dict:
    """One run of the mini model as its OpenTelemetry export: a root span, a chat span per turn, a tool span per
    call."""
    calls, answer = task_calls(task, "agent-v2-mini", sample, rng)
    trace = f"{run:04x}{TASKS.index(task):04x}{sample:04x}" + "5eed" * 5
    t = START + 3600.0 * run + 60.0 * (TASKS.index(task) * SAMPLES + sample)
    spans, clock, cost = [], t + 0.05, 0.0
    for i in range(len(calls) + 1):
        tokens = (rng.randint(300, 420), rng.randint(15, 60))
        cost += tokens[0] * 1.5e-7 + tokens[1] * 6e-7
        last = i == len(calls)
        output = json.dumps([{"role": "assistant", "parts": [{"type": "text", "content": answer}]}]) if last else None
        spans.append(span(trace, f"{i:014x}c1", "chat gpt-4o-mini", clock, clock + 0.6,
                          **{"gen_ai.operation.name": "chat", "gen_ai.request.model": "agent-v2-mini",
                             "gen_ai.usage.input_tokens": tokens[0], "gen_ai.usage.output_tokens": tokens[1],
                             **({"gen_ai.output.messages": output} if output else {})}))
        clock += 0.7
        if not last:
            tool, arguments = calls[i]
            spans.append(span(trace, f"{i:014x}e1", f"execute_tool {tool}", clock, clock + 0.3,
                              **{"gen_ai.operation.name": "execute_tool", "gen_ai.tool.name": tool,
                                 "gen_ai.tool.call.arguments": json.dumps(arguments),
                                 "gen_ai.tool.call.result": "ok"}))
            clock += 0.4
    root = span(trace, "aa", "invoke_agent travel-agent", t, clock,
                **{"gen_ai.operation.name": "invoke_agent", "gen_ai.agent.name": "travel-agent", "task.id": task,
                   "task.sample": sample, "task.success": True, "task.cost": round(cost, 6)})
    return {"resourceSpans": [{"resource": {"attributes": [{"key": "service.name", "value": value("travel-agent")}]},
                               "scopeSpans": [{"scope": {"name": "travel-agent"}, "spans": [root, *spans]}]}]}


def write_runs(directory: Path, run: int) -> None:
    rng = random.Random(f"trajectory-example-{run}")
    (directory / "runs").mkdir(parents=True, exist_ok=True)
    logged = [logged_run(task, s, rng) for task in TASKS for s in range(SAMPLES)]
    traced = [traced_run(task, s, rng, run) for task in TASKS for s in range(SAMPLES)]
    (directory / "runs" / "agent-v2.jsonl").write_text("".join(json.dumps(r) + "\n" for r in logged))
    (directory / "runs" / "agent-v2-mini.otlp.jsonl").write_text("".join(json.dumps(r) + "\n" for r in traced))


def write_baseline(directory: Path) -> None:
    rng = random.Random("trajectory-example-main")
    runs = []
    for task in TASKS:
        calls, answer = task_calls(task, "agent-v1", 0, random.Random(f"main-{task}"))
        runs.append({"task_id": task, "model": "agent-v1", "steps": [{"tool": t, "arguments": a} for t, a in calls],
                     "final_answer": answer, "success": True, "cost": round(rng.uniform(0.004, 0.006), 6)})
    (directory / "base").mkdir(exist_ok=True)
    (directory / "base" / "agent-v1.jsonl").write_text("".join(json.dumps(r) + "\n" for r in runs))


def main() -> int:
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    write_baseline(HERE)
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp) / "trajectory"
        shutil.copytree(HERE, work, ignore=shutil.ignore_patterns("gate-report", ".gate-cache", "__pycache__"))
        for stale in (work / "baselines" / "metrics").glob("*.json"):
            stale.unlink()
        for run in range(1, RERUNS + 1):
            write_runs(work, run)
            command = [sys.executable, "-m", "gate", "baseline", "bless", "--config", "gate.yml",
                       *(["--add"] if run > 1 else [])]
            subprocess.run(command, cwd=work, env=env, check=True)
        (HERE / "baselines" / "metrics").mkdir(parents=True, exist_ok=True)
        shutil.copyfile(work / "baselines" / "metrics" / "agent.json", HERE / "baselines" / "metrics" / "agent.json")
    write_runs(HERE, 0)  # this pull request's runs
    print("wrote runs/, base/ and baselines/metrics/agent.json")
    return 0


if __name__ == "__main__":
    sys.exit(main())
