"""The local causal LM provider: its text and token log-probabilities against an independent forward pass."""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")
transformers = pytest.importorskip("transformers")

from gate.generate.providers.local import LocalProvider  # noqa: E402
from gate.generate.providers.types import Parameters, Request, Response  # noqa: E402
from gate.runtime.engines.causal import CausalLM  # noqa: E402
from tests.support.tiny_models import build_tiny_causal_lm  # noqa: E402


@pytest.fixture(scope="module")
def model_dir(tmp_path_factory):
    return build_tiny_causal_lm(tmp_path_factory.mktemp("causal"))


@pytest.fixture(scope="module")
def provider(model_dir):
    return LocalProvider(CausalLM(model_dir, device="cpu", name="tiny"))


def _reference(model_dir, prompt: str, completion_ids: list[int]) -> list[float]:
    """log_softmax of the logits at each generated position, from one forward pass over prompt + completion."""
    tokenizer = transformers.AutoTokenizer.from_pretrained(model_dir)
    model = transformers.AutoModelForCausalLM.from_pretrained(model_dir).eval()
    prompt_ids = tokenizer(prompt)["input_ids"]
    ids = torch.tensor([prompt_ids + completion_ids])
    with torch.no_grad():
        logp = torch.log_softmax(model(ids).logits[0].float(), dim=-1)
    start = len(prompt_ids) - 1
    return [float(logp[start + i, t]) for i, t in enumerate(completion_ids)], [
        int(logp[start + i].argmax()) for i in range(len(completion_ids))]


def test_greedy_text_and_token_logprobs_match_an_independent_forward_pass(provider, model_dir):
    prompt = "The function handles"
    result = provider.call(Request("tiny", prompt=prompt, parameters=Parameters(max_tokens=10, logprobs=True)))
    assert isinstance(result, Response) and result.token_logprobs is not None
    tokenizer = transformers.AutoTokenizer.from_pretrained(model_dir)
    completion = tokenizer(result.text, add_special_tokens=False)["input_ids"]
    expected, argmax = _reference(model_dir, prompt, completion)
    assert [t for t, _ in result.token_logprobs] == [tokenizer.decode([i]) for i in completion]
    assert [lp for _, lp in result.token_logprobs] == pytest.approx(expected, abs=1e-4)
    assert argmax == completion  # greedy: each token is the most probable one
    assert result.usage.completion_tokens == len(completion) and result.model_version.startswith("tiny@")
    assert result.finish_reason in ("length", "stop")


def test_sampling_is_seeded_per_sample_and_logprobs_stay_the_models(provider, model_dir):
    def sample(k: int) -> Response:
        out = provider.call(Request("tiny", prompt="The loop", sample=k,
                                    parameters=Parameters(max_tokens=8, temperature=1.0, seed=5, logprobs=True)))
        assert isinstance(out, Response)
        return out

    first, again, other = sample(0), sample(0), sample(1)
    assert first.text == again.text and first.token_logprobs == again.token_logprobs
    assert (first.text, first.token_logprobs) != (other.text, other.token_logprobs)
    tokenizer = transformers.AutoTokenizer.from_pretrained(model_dir)
    completion = tokenizer(first.text, add_special_tokens=False)["input_ids"]
    if len(completion) == len(first.token_logprobs or ()):  # BPE re-tokenises a sampled text alike, usually
        expected, _ = _reference(model_dir, "The loop", completion)
        assert [lp for _, lp in first.token_logprobs or ()] == pytest.approx(expected, abs=1e-4)


def test_a_stop_sequence_cuts_the_text_and_logprobs_are_only_returned_when_asked(provider):
    full = provider.call(Request("tiny", prompt="The function handles", parameters=Parameters(max_tokens=10)))
    assert isinstance(full, Response) and full.token_logprobs is None
    stop = full.text.split()[1] if len(full.text.split()) > 1 else full.text[-2:]
    cut = provider.call(Request("tiny", prompt="The function handles",
                                parameters=Parameters(max_tokens=10, stop=(stop,), logprobs=True)))
    assert isinstance(cut, Response) and cut.finish_reason == "stop"
    assert cut.text == full.text[: full.text.find(stop)] and stop not in cut.text
    assert "".join(t for t, _ in cut.token_logprobs or ()) == cut.text[: len("".join(t for t, _ in cut.token_logprobs
                                                                                        or ()))]
