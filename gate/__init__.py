"""llm-quality-gate: gate pull requests on the quality of LLM outputs."""

__version__ = "0.1.0"
