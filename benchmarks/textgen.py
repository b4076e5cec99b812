"""Plausible English from sentence templates and word banks, deterministic for a given `random.Random`.

Pure functions: every text depends only on the generator's state. Templates are filled slot by slot
(`{noun}`, `{verb}`, ...) from a per-domain bank, so the combinations are many and texts are distinct,
while sentence lengths (8-30 words) and vocabulary stay close to what LLMs write.
"""

from __future__ import annotations

import random
import re

COMMON = {
    "conn": ["However,", "Moreover,", "In addition,", "For example,", "As a result,", "In practice,",
             "On the other hand,", "Overall,", "In short,", "That said,", "Importantly,", "Similarly,"],
    "adv": ["clearly", "carefully", "usually", "often", "rarely", "briefly", "consistently", "partly",
            "mostly", "directly", "gradually", "explicitly"],
    "hedge": ["it is worth noting that", "in most cases", "as far as we can tell", "to be fair",
              "in general", "at least in this context", "by and large", "for the most part"],
}

BANKS: dict[str, dict[str, list[str]]] = {
    "feedback": {
        "noun": ["the explanation", "your answer", "the example", "the diagram", "the second paragraph",
                 "the definition", "the comparison", "the conclusion", "the code snippet", "the argument",
                 "the introduction", "the discussion of trade-offs", "the class structure", "the interface"],
        "concept": ["the observer pattern", "loose coupling", "dependency injection", "the strategy pattern",
                    "encapsulation", "the singleton pattern", "inheritance", "composition", "the factory method",
                    "the adapter pattern", "cohesion", "the model view controller architecture",
                    "the facade pattern", "polymorphism", "the decorator pattern", "separation of concerns"],
        "verb": ["describes", "explains", "identifies", "illustrates", "mentions", "justifies", "covers",
                 "motivates", "summarises", "contrasts", "defines", "applies"],
        "adj": ["correct", "precise", "vague", "incomplete", "convincing", "well structured", "too brief",
                "accurate", "partially correct", "thorough", "confusing", "concrete"],
        "fix": ["add a concrete example", "name both roles explicitly", "explain the runtime interaction",
                "discuss one drawback", "compare it with an alternative design", "define the interface",
                "justify the choice of pattern", "describe how objects register", "mention the cost of the design",
                "separate the two responsibilities", "show when the pattern is a poor fit"],
        "title": ["Roles and interaction", "Concrete example", "Advantage and drawback", "Definition",
                  "Structure", "Runtime behaviour", "Design rationale", "Terminology", "Completeness",
                  "Trade-offs", "Application", "Clarity of argument"],
    },
    "science": {
        "noun": ["evaporation", "the water cycle", "photosynthesis", "gravity", "friction", "the food chain",
                 "condensation", "erosion", "magnetism", "the solar system", "a chemical reaction",
                 "electric current", "the moon's phases", "sound waves", "plant roots", "melting ice"],
        "concept": ["energy transfer", "the heat of the sun", "a change of state", "air pressure",
                    "the speed of light", "surface tension", "the force of attraction", "the density of water",
                    "sunlight and carbon dioxide", "the tilt of the earth's axis", "a closed circuit"],
        "verb": ["causes", "explains", "depends on", "changes", "produces", "reduces", "increases",
                 "drives", "affects", "controls", "limits", "releases"],
        "adj": ["correct", "likely", "best", "most accurate", "simplest", "expected", "reasonable",
                "common", "important", "measurable", "visible", "gradual"],
        "fix": ["option B is the answer", "the other options do not fit", "the key idea is a change of state",
                "the evidence points to the second option", "this matches the definition in the textbook",
                "the question asks about the cause, not the effect", "the remaining choices describe other processes"],
        "title": ["Answer", "Reasoning", "Explanation", "Evidence", "Summary"],
    },
    "social": {
        "noun": ["a person", "each individual", "the community", "a colleague", "the family", "a worker",
                 "a student", "a leader", "the neighbour", "a young adult", "an older adult", "a professional"],
        "concept": ["personal experience", "cultural background", "education", "opportunity", "upbringing",
                    "individual choice", "social context", "economic circumstances", "training", "personality"],
        "verb": ["shapes", "influences", "determines", "varies with", "reflects", "depends on", "affects",
                 "is linked to", "changes with", "comes from"],
        "adj": ["diverse", "capable", "thoughtful", "skilled", "emotional", "ambitious", "careful", "creative",
                "reliable", "independent", "generous", "practical"],
        "fix": ["generalisations about a whole group are rarely accurate",
                "research shows wide variation within groups",
                "each person should be judged on their own merits", "stereotypes often ignore context",
                "there is some truth to common perceptions", "many people share this view",
                "differences between individuals are larger than differences between groups"],
        "title": ["Perspective", "Evidence", "Context", "Summary"],
    },
    "handbook": {
        "noun": ["the refund policy", "the monthly plan", "the annual plan", "the support team", "the service level",
                 "the storage quota", "the compute instance", "the billing cycle", "the admin console",
                 "the data retention period", "the API rate limit", "the backup schedule", "the account owner",
                 "the enterprise contract", "the status page", "the invoice"],
        "concept": ["a full refund", "a pro rata credit", "a written request", "two-factor authentication",
                    "a support ticket", "an upgrade", "the next renewal", "a service credit", "a data export",
                    "an overage fee", "a maintenance window", "a security review"],
        "verb": ["requires", "includes", "allows", "limits", "covers", "excludes", "triggers", "replaces",
                 "extends", "applies to", "depends on", "guarantees"],
        "adj": ["monthly", "annual", "eligible", "standard", "premium", "temporary", "automatic", "manual",
                "regional", "critical", "scheduled", "optional"],
        "fix": ["customers can cancel at any time", "the change takes effect at the next billing date",
                "approval from the finance team is needed", "the request must be made within 14 days",
                "the data is kept for 30 days", "the limit resets every hour", "a ticket is opened automatically"],
        "title": ["Policy", "Steps", "Limits", "Exceptions"],
    },
}

TEMPLATES = [
    "{Noun} {verb} {concept} in a way that is {adj}.",
    "{Conn} {noun} {adv} {verb} {concept}, and {fix}.",
    "{Noun} is {adj}, although {noun2} {verb} {concept} only {adv}.",
    "It is {adj} that {noun} {verb} {concept}; {hedge}, {fix}.",
    "{Conn} {hedge}, {noun} {verb} {concept} and {noun2} {verb2} it as well.",
    "When {noun} {verb} {concept}, {noun2} becomes {adj} and {fix}.",
    "{Noun} {adv} {verb} {concept}, which is {adj} for this question.",
    "{Conn} {fix}, because {noun} {verb} {concept}.",
    "One {adj} point is that {noun} {verb} {concept} rather than {concept2}.",
    "{Noun} and {noun2} both {verb_base} {concept}, but only one of them is {adj}.",
    "In this case {noun} {verb} {concept} {adv}, so {fix}.",
    "{Conn} {noun} {verb} {concept2}, which makes the overall picture {adj}.",
]

_BASE = {"describes": "describe", "explains": "explain", "identifies": "identify", "illustrates": "illustrate",
         "mentions": "mention", "justifies": "justify", "covers": "cover", "motivates": "motivate",
         "summarises": "summarise", "contrasts": "contrast", "defines": "define", "applies": "apply",
         "causes": "cause", "depends on": "depend on", "changes": "change", "produces": "produce",
         "reduces": "reduce", "increases": "increase", "drives": "drive", "affects": "affect", "controls": "control",
         "limits": "limit", "releases": "release", "shapes": "shape", "influences": "influence",
         "determines": "determine", "varies with": "vary with", "reflects": "reflect", "is linked to": "are linked to",
         "changes with": "change with", "comes from": "come from", "requires": "require", "includes": "include",
         "allows": "allow", "excludes": "exclude", "triggers": "trigger", "replaces": "replace", "extends": "extend",
         "applies to": "apply to", "guarantees": "guarantee"}


def sentence(rng: random.Random, domain: str) -> str:
    bank = {**COMMON, **BANKS[domain]}
    template = rng.choice(TEMPLATES)
    verb = rng.choice(bank["verb"])
    values = {
        "noun": rng.choice(bank["noun"]), "noun2": rng.choice(bank["noun"]),
        "concept": rng.choice(bank["concept"]), "concept2": rng.choice(bank["concept"]),
        "verb": verb, "verb2": rng.choice(bank["verb"]), "verb_base": _BASE.get(verb, verb),
        "adj": rng.choice(bank["adj"]), "adv": rng.choice(bank["adv"]), "fix": rng.choice(bank["fix"]),
        "hedge": rng.choice(bank["hedge"]), "conn": rng.choice(bank["conn"]),
    }
    values["Noun"] = _cap(values["noun"])
    values["Conn"] = values["conn"]
    text = template.format(**values)
    return _cap(text)


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:]


def words(text: str) -> int:
    return len(text.split())


def paragraph(rng: random.Random, domain: str, low: int, high: int) -> str:
    """Sentences until the text has between `low` and `high` words (a target drawn uniformly)."""
    target = rng.randint(low, high)
    parts: list[str] = []
    count = 0
    while count < target:
        s = sentence(rng, domain)
        if count + words(s) > high and count >= low:
            break
        parts.append(s)
        count += words(s)
    return " ".join(parts)


def split_sentences(text: str) -> list[str]:
    return [s for s in re.split(r"(?<=[.!?])\s+", text) if s]


def reword(rng: random.Random, text: str, domain: str, fraction: float) -> str:
    """A paraphrase-like variant: `fraction` of the sentences replaced, one maybe dropped or moved."""
    parts = split_sentences(text)
    for i in range(len(parts)):
        if rng.random() < fraction:
            parts[i] = sentence(rng, domain)
    if len(parts) > 3 and rng.random() < 0.3:
        parts.pop(rng.randrange(len(parts)))
    if len(parts) > 2 and rng.random() < 0.3:
        parts.insert(rng.randrange(len(parts)), parts.pop())
    return " ".join(parts)


def question(rng: random.Random, domain: str, low: int = 15, high: int = 40) -> str:
    """A question of `low`-`high` words: context sentences, then the question itself."""
    bank = {**COMMON, **BANKS[domain]}
    ask = rng.choice([
        "Which statement best explains why {noun} {verb} {concept}?",
        "How does {noun} relate to {concept}, and what happens when it changes?",
        "What should happen to {noun} when {concept} is requested by the customer?",
        "Why is it said that {noun} {verb} {concept} in most situations?",
    ])
    verb = rng.choice(bank["verb"])
    text = ask.format(noun=rng.choice(bank["noun"]), concept=rng.choice(bank["concept"]), verb=verb,
                      verb_base=_BASE.get(verb, verb))
    target = rng.randint(low, high)
    while words(text) < target:
        lead = sentence(rng, domain)
        if words(text) + words(lead) > high:
            break
        text = lead + " " + text
    return _cap(text)
