"""Generation: the pipeline's step before `load_suites` (DESIGN.md §2) — ask the system under test, record every
call in a committed cassette, and replay it in CI with no network call.

- `providers/`: one protocol (`types.Request` → `types.Response` | `types.Failure`) and its implementations: an
  OpenAI-compatible client (`openai`, sending only where the workflow allows, `access`), the user's own program
  over JSON Lines (`command`), and a local Hugging Face causal LM (`local`, whose engine lives in gate/runtime).
- `cassettes`: the committed record of every call, its modes (replay, record-missing, refresh) and its fingerprint.
- `runner`: one suite's calls through its cassette and provider, bounded and budgeted; `plan`: the dry run;
  `budget`: prices, the hard budget and the totals for the report.
- What to ask is each kind's own recipe (`Kind.generation`, in the kind's folder): the dataset, the prompt, the
  seeds' mechanical prompt variations; this package names no kind.

Nothing here imports torch; nothing below the pipeline imports this package.
"""
