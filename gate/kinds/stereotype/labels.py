"""Reading words: which classifier label is the stereotype class, and whether an answer names the trait.

The stereotype class is found from the label names (never a hard-coded index), so a classifier whose
classes are ordered differently is still read right; an ambiguous or unknown label is a located
`ConfigError` with the labels it could have been.
"""

from __future__ import annotations

import re

from gate.errors import ConfigError, Problem

_POSITIVE = {"stereotype", "stereotypes", "stereotypical", "stereotyped", "biased", "bias"}
_NEGATIONS = {"non", "not", "no", "un", "anti", "neutral", "unbiased"}


def mentions(text: str, trait: str) -> bool:
    """The trait as a whole word or phrase, any case, any whitespace between its words."""
    words = trait.split()
    if not words:
        return False
    pattern = r"(?<!\w)" + r"\s+".join(re.escape(w) for w in words) + r"(?!\w)"
    return re.search(pattern, text, flags=re.IGNORECASE) is not None


def stereotype_label(id2label: dict[int, str], override: str | int | None, field: str) -> tuple[int, str | None]:
    """The index of the stereotype class, from the label names (never a hard-coded index)."""
    names = ", ".join(f"{i}: {n}" for i, n in sorted(id2label.items()))
    if override is not None:
        if isinstance(override, int) or str(override).isdigit():
            if int(override) in id2label:
                return int(override), None
        else:
            matches = [i for i, n in id2label.items() if n.lower() == str(override).lower()]
            if matches:
                return matches[0], None
        raise ConfigError("stereotype classifier", [Problem(
            field=field, expected=f"one of the classifier's labels ({names})", found=repr(override),
            fix="use a label name or index from the model's config id2label")])
    found = [i for i, name in id2label.items() if _is_stereotype(name)]
    if len(found) == 1:
        return found[0], None
    if len(id2label) == 2 and all(re.fullmatch(r"LABEL_\d+", n) for n in id2label.values()) and 1 in id2label:
        return 1, (f"The classifier's labels are unnamed ({names}); LABEL_1 is taken as the stereotype class. "
                   f"Set `stereotype_label` if it is LABEL_0.")
    raise ConfigError("stereotype classifier", [Problem(
        field=field, expected="a label named like Stereotype or BIASED in the classifier's id2label",
        found=f"{'several' if found else 'none'} among {names}",
        fix="set `stereotype_label:` to the name or index of the stereotype class")])


def _is_stereotype(name: str) -> bool:
    words = [w for w in re.split(r"[^a-z]+", name.lower()) if w]
    return bool(set(words) & _POSITIVE) and not set(words) & _NEGATIONS
