"""llm-quality-gate: gate pull requests on the quality of LLM outputs."""

__version__ = "0.2.0"
