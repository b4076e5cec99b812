"""The stereotype suite's report view: per model, per model × trait, and the worst pairs side by side.

A pair is one generation's answers with its own values: with repeated samples the worst are picked among the
generations (`StereotypeDetails.generations`), labelled with their sample, never a probe's first answers beside
its means."""

from __future__ import annotations

from typing import Any

from gate.judge import SuiteVerdict
from gate.kinds.stereotype.probes import StereotypeItemDetails
from gate.kinds.stereotype.scorer import StereotypeDetails
from gate.report.escape import inert
from gate.report.formatting import counted, icon, number
from gate.results import GroupResult, Item, details_as

TEXT_LIMIT = 700


def build(suite: SuiteVerdict, worst_items: int) -> dict[str, Any]:
    result = suite.result
    details = details_as(result.details, StereotypeDetails)
    settings = details.settings
    per_model = [_model_row(suite, g) for g in result.groups_at("group")]
    per_trait = [_trait_row(suite, g) for g in result.groups_at("trait")]
    pairs = details.generations or result.items
    worst = sorted(pairs, key=lambda i: -(i.values.get("drift_drift_score") or 0.0))[:worst_items]
    return {
        "settings": " · ".join([
            f"classifier <code>{inert(settings.classifier)}</code> (label "
            f"<code>{inert(settings.stereotype_label)}</code> = index {settings.label_index})",
            f"embedding <code>{inert(settings.embedding)}</code>",
            f"significant drift > {settings.threshold:g}",
            f"{counted(settings.probes, 'probe')} × {counted(len(settings.models), 'model')}",
            f"paired test: {settings.paired_test}",
        ]),
        "per_model": per_model,
        "per_trait": per_trait,
        "worst": [_pair(item) for item in worst],
    }


def _model_row(suite: SuiteVerdict, group: GroupResult) -> dict[str, str]:
    m = group.metrics
    return {
        "model": inert(dict(group.key)["model"], limit=60),
        "icon": icon(suite.group_shown("group", group.key)),
        "n": str(group.n),
        "drift": number(m.get("drift_score_mean")),
        "raw": number(m.get("raw_drift_mean"), "+.3f"),
        "significant": number(m.get("significant_drift_rate"), ".0%"),
        "mentioned": number(m.get("trait_mention_rate"), ".0%"),
        "control": number(m.get("control_stereotype_score_mean")),
        "bias": number(m.get("bias_stereotype_score_mean")),
        "sim_control": number(m.get("control_semantic_similarity_mean")),
        "sim_bias": number(m.get("bias_semantic_similarity_mean")),
        "sim_pair": number(m.get("drift_semantic_similarity_mean")),
        "p": number(m.get("paired_test_p"), ".3g"),
    }


def _trait_row(suite: SuiteVerdict, group: GroupResult) -> dict[str, str]:
    key, m = dict(group.key), group.metrics
    verdict = suite.group_shown("trait", group.key)
    return {
        "model": inert(key["model"], limit=60),
        "trait": inert(key["trait"], limit=60, newline=" "),
        "icon": icon(verdict) if verdict else "",
        "n": str(group.n),
        "drift": number(m.get("drift_score_mean")),
        "raw": number(m.get("raw_drift_mean"), "+.3f"),
        "significant": number(m.get("significant_drift_rate"), ".0%"),
        "mentioned": number(m.get("trait_mention_rate"), ".0%"),
    }


def _pair(item: Item) -> dict[str, str]:
    key, values, details = dict(item.key), item.values, details_as(item.details, StereotypeItemDetails)
    return {
        "label": inert(f"{key['model']} · {key['id']}" + (f" · sample {key['sample']}" if "sample" in key else "")
                       + f" · trait “{key['trait']}”", limit=200, newline=" "),
        "drift": number(values.get("drift_drift_score")),
        "change": f"{number(values.get('control_stereotype_score'))} → {number(values.get('bias_stereotype_score'))}",
        "significant": "significant" if values.get("drift_significant_drift") else "not significant",
        "mentioned": "trait mentioned" if values.get("similarity_trait_mentioned") else "trait not mentioned",
        "emgsd": inert(details.emgsd_text, limit=300),
        "control": inert(details.control_response, limit=TEXT_LIMIT),
        "bias": inert(details.bias_response, limit=TEXT_LIMIT),
        "source": inert(str(item.source)) if item.source else "",
    }
