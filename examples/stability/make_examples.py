"""Generate the stability example: two chat models answering the same questions under ten prompt variations.

    python examples/stability/make_examples.py      # rewrites both files below, byte for byte

Writes, next to this script:

    tinyllama-1.1b-chat.jsonl      JSON Lines, one record per line
    mistral-7b-instruct.csv        the same columns as CSV; `token_logprobs` is a JSON list in its cell

One record per (model, task, question, prompt variant): 2 models x 2 tasks x 5 questions x 10 variants
= 200 records, with the fields

    model, task, question_id, variant_id, variation, prompt, response, token_logprobs

`variation` names the change the variant's prompt applies to the original question, and
`token_logprobs` holds one natural-log probability (<= 0) per response token.

The answers are hand-written to show two typical behaviours (they are illustrative, not real model
output):

    mistral-7b-instruct   stable: the same option / the same number under nearly every variation,
                          in nearly the same words, with high token probabilities (mean logprob
                          about -0.05 ... -0.2).
    tinyllama-1.1b-chat   unstable: flips options and numbers, changes format, continues the few-shot
                          pattern with a question of its own, and answers the "distractor sentence"
                          instead of the question or gets lost when the options are reordered; low
                          token probabilities (mean logprob about -0.4 ... -1.2).

The token log-probabilities are synthetic but deterministic: every response draws them from a random
generator seeded with its own (model, task, question, variant) key, so re-running the script gives the
same files. Tokens are "words" and punctuation marks (the regex ``\\w+|[^\\w\\s]``), and the answer
tokens (the option letter, the LCS length) get a much lower log-probability where the model flips.
"""

from __future__ import annotations

import csv
import json
import math
import random
import re
from pathlib import Path

HERE = Path(__file__).resolve().parent

MISTRAL = "mistral-7b-instruct"
TINYLLAMA = "tinyllama-1.1b-chat"

# The ten variations, in variant order (variant_id "v01" ... "v10").
VARIATIONS = [
    "original",
    "paraphrase",
    "typo",
    "options reordered",
    "uppercase",
    "polite",
    "role prefix",
    "few-shot",
    "terse instruction",
    "distractor sentence",
]

LETTERS = "ABCD"


# --------------------------------------------------------------------------------------------------
# Answer markers. Response templates wrap the answer (option letter, LCS length) in ⟦...⟧ so that the
# log-probability generator knows which tokens carry the answer; the markers are removed from the
# text that is written.
# --------------------------------------------------------------------------------------------------


def mark(text: object) -> str:
    return f"⟦{text}⟧"


def unmark(text: str) -> str:
    return text.replace("⟦", "").replace("⟧", "")


# --------------------------------------------------------------------------------------------------
# Task 1: openbookqa, elementary science multiple choice with options A-D.
# --------------------------------------------------------------------------------------------------

OBQA_QUESTIONS = [
    {
        "id": "obqa-001",
        "question": "A puddle on the playground is gone by the afternoon of a hot, sunny day. "
        "Which process made the water disappear?",
        "paraphrase": "On a hot and sunny day, a puddle on the playground dries up by the afternoon. "
        "What happened to the water?",
        "options": ["Condensation", "Evaporation", "Precipitation", "Freezing"],
        "answer": 1,
        "why": "the sun's heat turned the water into water vapour.",
        "why_alt": "heat from the sun changed the liquid water into vapour in the air.",
        "tiny_why": "When water gets hot it turns into a gas called water vapour and goes up into the air.",
        "tiny_wrong": 2,
        "tiny_wrong_why": "precipitation is when the water goes from the ground back up into the sky",
        "distractor": "My little brother got a red bicycle for his birthday last week.",
        "tiny_ramble": "That's so nice that your brother got a new bicycle! Riding a bike is great "
        "exercise and a lot of fun. Make sure he always wears a helmet and rides on the sidewalk.",
        "tiny_next_question": "Question: Which of these is a gas?\nA) ice\nB) steam\nC) sand\nD) milk\n"
        "Answer: B. Steam",
    },
    {
        "id": "obqa-002",
        "question": "Which of these objects lets heat pass through it most easily?",
        "paraphrase": "Heat travels fastest through which of the following objects?",
        "options": ["A wooden spoon", "A wool mitten", "A steel pan", "A plastic cup"],
        "answer": 2,
        "why": "metals such as steel are good conductors of heat.",
        "why_alt": "steel is a metal, and metals conduct heat well.",
        "tiny_why": "Steel is a metal and metal is a good conductor, so the heat can move through it quickly.",
        "tiny_wrong": 1,
        "tiny_wrong_why": "a wool mitten keeps your hands warm, so it must let the heat through",
        "distractor": "The school cafeteria serves pizza every Friday.",
        "tiny_ramble": "Pizza Friday sounds like a lot of fun! Pizza is one of the most popular foods "
        "in the world. It was first made in Naples, Italy, and today there are many kinds of toppings "
        "like cheese, pepperoni and mushrooms.",
        "tiny_next_question": "Question: Which of these is attracted to a magnet?\nA) a paper clip\n"
        "B) a rubber band\nC) a pencil\nD) a glass marble\nAnswer: A. A paper clip",
    },
    {
        "id": "obqa-003",
        "question": "What do green plants use sunlight for?",
        "paraphrase": "Why do green plants need sunlight?",
        "options": ["To soak up water", "To make their own food", "To keep their roots warm", "To attract insects"],
        "answer": 1,
        "why": "plants use the energy in sunlight to make sugar by photosynthesis.",
        "why_alt": "sunlight powers photosynthesis, which makes the plant's food.",
        "tiny_why": "Plants do photosynthesis, which uses sunlight, water and carbon dioxide to make sugar.",
        "tiny_wrong": 0,
        "tiny_wrong_why": "the sun dries the soil so the roots can drink the water faster",
        "distractor": "Our class is going on a trip to the aquarium tomorrow.",
        "tiny_ramble": "Have a great time at the aquarium! You might see sharks, jellyfish, sea turtles "
        "and lots of colourful fish. Don't forget to bring a packed lunch and a camera.",
        "tiny_next_question": "Question: Which part of a plant takes in water?\nA) the flower\nB) the leaf\n"
        "C) the roots\nD) the seed\nAnswer: C. The roots",
    },
    {
        "id": "obqa-004",
        "question": "Why does the Moon seem to change shape over the course of a month?",
        "paraphrase": "What causes the different phases of the Moon that we see during a month?",
        "options": [
            "Earth's shadow covers a different part of it each night",
            "Clouds hide parts of it",
            "We see different amounts of its sunlit half as it orbits Earth",
            "It grows and shrinks",
        ],
        "answer": 2,
        "why": "the Moon is always half lit by the Sun, and as it orbits Earth we see more or less of that lit half.",
        "why_alt": "as the Moon orbits Earth, we see a changing amount of the half that the Sun lights up.",
        "tiny_why": "The Moon goes around the Earth and the Sun lights up half of it, so we see different parts.",
        "tiny_wrong": 0,
        "tiny_wrong_why": "the Earth's shadow moves across the Moon every night and makes the phases",
        "distractor": "I left my umbrella on the bus this morning.",
        "tiny_ramble": "Oh no, losing an umbrella is so annoying! You can call the bus company's lost "
        "and found office, they usually keep things for a few weeks. In the meantime, I hope it doesn't rain.",
        "tiny_next_question": "Question: What does the Earth orbit?\nA) the Moon\nB) Mars\nC) the Sun\n"
        "D) a comet\nAnswer: C. The Sun",
    },
    {
        "id": "obqa-005",
        "question": "Which of these energy sources is renewable?",
        "paraphrase": "Which of the following sources of energy will not run out?",
        "options": ["Coal", "Natural gas", "Wind", "Oil"],
        "answer": 2,
        "why": "wind is replaced naturally and will not run out, unlike fossil fuels.",
        "why_alt": "wind keeps blowing and is never used up, while coal, gas and oil are fossil fuels.",
        "tiny_why": "Wind is renewable because it will never run out, but coal, oil and gas are fossil fuels.",
        "tiny_wrong": 1,
        "tiny_wrong_why": "natural gas comes from nature, so it is natural and renewable",
        "distractor": "My grandmother makes the best apple pie in town.",
        "tiny_ramble": "Your grandmother's apple pie sounds delicious! A good apple pie needs crisp "
        "apples, cinnamon, a little sugar and a buttery crust. Maybe you could ask her for the recipe.",
        "tiny_next_question": "Question: Which of these is a fossil fuel?\nA) sunlight\nB) coal\nC) water\n"
        "D) wind\nAnswer: B. Coal",
    },
]

OBQA_FEW_SHOT = (
    "Question: Which of these gives off its own light?\nA) the Moon\nB) a mirror\nC) the Sun\nD) a window\n"
    "Answer: C. The Sun\n\n"
    "Question: What is frozen water called?\nA) steam\nB) ice\nC) fog\nD) dew\n"
    "Answer: B. Ice\n\n"
)


def rotate(options: list[str]) -> list[str]:
    """The "options reordered" variant: every option moves up one place (B becomes A, A becomes D)."""
    return options[1:] + options[:1]


def option_lines(options: list[str]) -> str:
    return "\n".join(f"{LETTERS[i]}) {text}" for i, text in enumerate(options))


def obqa_prompt(q: dict, variation: str, rng: random.Random) -> str:
    question, options = q["question"], q["options"]
    ask = "Answer with the letter of the correct option."
    if variation == "paraphrase":
        question = q["paraphrase"]
    elif variation == "typo":
        question = add_typos(question, rng)
    elif variation == "options reordered":
        options = rotate(options)
    elif variation == "distractor sentence":
        question = f"{q['distractor']} {question}"
    elif variation == "terse instruction":
        return f"{question}\n{option_lines(options)}\nLetter only."
    elif variation == "few-shot":
        return f"{OBQA_FEW_SHOT}Question: {question}\n{option_lines(options)}\nAnswer:"

    prompt = f"Question: {question}\n{option_lines(options)}\n{ask}"
    if variation == "uppercase":
        prompt = prompt.upper()
    elif variation == "polite":
        prompt = f"Hello! Could you please help me with this science question? Thank you so much!\n\n{prompt}"
    elif variation == "role prefix":
        prompt = f"You are an experienced elementary school science teacher.\n\n{prompt}"
    return prompt


def obqa_answer(q: dict, variation: str, index: int) -> tuple[str, str]:
    """(letter, option text) of option `index` as the variant's prompt lists it."""
    options = rotate(q["options"]) if variation == "options reordered" else q["options"]
    position = options.index(q["options"][index])
    return LETTERS[position], options[position]


def obqa_mistral(q: dict, variation: str) -> str:
    letter, text = obqa_answer(q, variation, q["answer"])
    L = mark(letter)
    why, why_alt = q["why"], q["why_alt"]
    responses = {
        "original": f"{L}. {text} — {why}",
        "paraphrase": f"The answer is {L}. {text}: {why_alt}",
        "typo": f"{L}. {text} — {why}",
        "options reordered": f"{L}. {text} — {why}",
        "uppercase": f"{L}. {text} — {why_alt}",
        "polite": f"Of course! The correct answer is {L}. {text} — {why}",
        "role prefix": f"{L}. {text}. In simple words, {why_alt}",
        "few-shot": f"{L}. {text}",
        "terse instruction": f"{L}. {text}",
        "distractor sentence": f"{L}. {text} — {why}",
    }
    return responses[variation]


def obqa_tinyllama(q: dict, variation: str, number: int) -> str:
    letter, text = obqa_answer(q, variation, q["answer"])
    wrong_letter, wrong_text = obqa_answer(q, variation, q["tiny_wrong"])
    L, W = mark(letter), mark(wrong_letter)
    if variation == "options reordered":
        # The correct option moved; TinyLlama either sticks to the old position or gets lost.
        if number % 2:
            options = rotate(q["options"])
            old_letter = LETTERS[q["answer"]]
            stuck = options[q["answer"]]
            return (
                f"{mark(old_letter)}) {stuck}\n\nI chose this option because it was in the same "
                "place last time. Multiple choice tests often put the right answer in the same spot, "
                "so it is a good strategy to remember where it was."
            )
        return (
            "I'm sorry, but it looks like the answer choices are mixed up. Usually option A comes "
            "first and is the simplest one. Could you please check the order of the options and "
            "send me the question again?"
        )
    responses = {
        "original": f"The answer is {L}) {text}. {q['tiny_why']}",
        "paraphrase": f"{W}. {wrong_text}\n\nThe reason is that {q['tiny_wrong_why']}.",
        "typo": f"Answer: {L}) {text}",
        "uppercase": f"ANSWER: {L}) {text.upper()}",
        "polite": f"You're welcome! I'm happy to help with your science question. I think the answer "
        f"is {W}) {wrong_text}, because {q['tiny_wrong_why']}. Let me know if you have any other questions!",
        "role prefix": f"As a science teacher, I would explain it like this: {q['tiny_why']} "
        f"So the correct option is {L}.",
        "few-shot": f"{L}. {text}\n\n{q['tiny_next_question']}",
        "terse instruction": f"{W}) {wrong_text}",
        "distractor sentence": q["tiny_ramble"],
    }
    return responses[variation]


# --------------------------------------------------------------------------------------------------
# Task 2: lcs, the length of the longest common subsequence of two strings (BIG-bench style prompt).
# --------------------------------------------------------------------------------------------------

LCS_QUESTIONS = [
    {
        "id": "lcs-001",
        "strings": ("ACBDEA", "ABCDA"),
        "paraphrase": "What is the length of the longest sequence of characters that appears, in the "
        "same order, in both of these strings?",
        "tiny_wrong": [5, 3],
        "tiny_wrong_subsequence": "ABCDA",
        "distractor": "My neighbour's dog barked all night, so I am a bit tired today.",
        "tiny_ramble": "I'm sorry to hear that you didn't sleep well! Dogs often bark at night when "
        "they hear noises or feel lonely. You could try earplugs or talk to your neighbour about it.",
        "tiny_next_strings": ("ABD", "BDA"),
    },
    {
        "id": "lcs-002",
        "strings": ("GXTXAYB", "AGGTAB"),
        "paraphrase": "Two strings are given below. How many characters long is their longest common subsequence?",
        "tiny_wrong": [3, 6],
        "tiny_wrong_subsequence": "GTXAB",
        "distractor": "The weather forecast says it will snow on Saturday.",
        "tiny_ramble": "Snow on Saturday sounds exciting! You could build a snowman or go sledding. "
        "Remember to wear warm clothes, a hat and gloves when you go outside.",
        "tiny_next_strings": ("XYZ", "XZ"),
    },
    {
        "id": "lcs-003",
        "strings": ("CABDCA", "BDAC"),
        "paraphrase": "Find the longest subsequence that the two strings have in common and report how long it is.",
        "tiny_wrong": [4, 2],
        "tiny_wrong_subsequence": "CABD",
        "distractor": "I have been learning to play the guitar since January.",
        "tiny_ramble": "That's wonderful! Learning the guitar takes patience. Start with simple chords "
        "like G, C and D, and practise a little every day. Soon you will be able to play your favourite songs.",
        "tiny_next_strings": ("CAB", "ACB"),
    },
    {
        "id": "lcs-004",
        "strings": ("AGCAT", "GAC"),
        "paraphrase": "Determine how many characters the longest common subsequence of the following "
        "two strings contains.",
        "tiny_wrong": [3, 1],
        "tiny_wrong_subsequence": "GAC",
        "distractor": "We painted the kitchen light blue over the weekend.",
        "tiny_ramble": "Light blue is a lovely colour for a kitchen! It makes the room feel fresh and "
        "calm. White cabinets and wooden shelves would go really well with it.",
        "tiny_next_strings": ("TTA", "ATA"),
    },
    {
        "id": "lcs-005",
        "strings": ("TCAGGTAC", "CTAGTAC"),
        "paraphrase": "Compute the length of the longest common subsequence shared by the two strings below.",
        "tiny_wrong": [7, 5],
        "tiny_wrong_subsequence": "CTAGGTAC",
        "distractor": "The train to the city was twenty minutes late again.",
        "tiny_ramble": "Late trains are really frustrating, especially when you have somewhere to be. "
        "Many train companies offer a refund or compensation for delays, so it might be worth checking "
        "their website.",
        "tiny_next_strings": ("GATC", "TAGC"),
    },
]

LCS_INSTRUCTION = "Given two strings, determine the length of the longest common subsequence."

LCS_FEW_SHOT = (
    "Strings: ABCD ACD\nLength of longest common subsequence: 3\n\n"
    "Strings: BAC CAB\nLength of longest common subsequence: 2\n\n"
)


def longest_common_subsequence(a: str, b: str) -> str:
    """One longest common subsequence of a and b (dynamic programming, then a walk back)."""
    table = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i, x in enumerate(a):
        for j, y in enumerate(b):
            table[i + 1][j + 1] = table[i][j] + 1 if x == y else max(table[i][j + 1], table[i + 1][j])
    out, i, j = [], len(a), len(b)
    while i and j:
        if a[i - 1] == b[j - 1]:
            out.append(a[i - 1])
            i, j = i - 1, j - 1
        elif table[i - 1][j] >= table[i][j - 1]:
            i -= 1
        else:
            j -= 1
    return "".join(reversed(out))


def lcs_prompt(q: dict, variation: str, rng: random.Random) -> str:
    a, b = q["strings"]
    instruction = LCS_INSTRUCTION
    if variation == "paraphrase":
        instruction = q["paraphrase"]
    elif variation == "typo":
        instruction = add_typos(instruction, rng)
    elif variation == "options reordered":
        a, b = b, a  # the two strings swap places; the LCS does not change
    elif variation == "distractor sentence":
        instruction = f"{instruction} {q['distractor']}"
    elif variation == "terse instruction":
        return f"LCS length of {a} and {b}? Number only."
    elif variation == "few-shot":
        return f"{instruction}\n\n{LCS_FEW_SHOT}Strings: {a} {b}\nLength of longest common subsequence:"

    prompt = f"{instruction}\n\nStrings: {a} {b}\nLength of longest common subsequence:"
    if variation == "uppercase":
        prompt = prompt.upper()
    elif variation == "polite":
        prompt = f"Hi! Could you please help me with a small puzzle? I would really appreciate it.\n\n{prompt}"
    elif variation == "role prefix":
        prompt = f"You are an expert in string algorithms.\n\n{prompt}"
    return prompt


# Mistral's one slip in the example: distracted, it drops a character of the subsequence.
MISTRAL_LCS_SLIPS = {("lcs-003", "distractor sentence")}


def lcs_mistral(q: dict, variation: str) -> str:
    a, b = q["strings"]
    sub = longest_common_subsequence(a, b)
    if (q["id"], variation) in MISTRAL_LCS_SLIPS:
        sub = sub[:-1]
    n = mark(len(sub))
    responses = {
        "original": f"The LCS of {a} and {b} has length {n} ({sub}).",
        "paraphrase": f"The longest common subsequence of {a} and {b} is {sub}, so its length is {n}.",
        "typo": f"The LCS of {a} and {b} has length {n} ({sub}).",
        "options reordered": f"The LCS of {b} and {a} has length {n} ({sub}).",
        "uppercase": f"The LCS of {a} and {b} has length {n} ({sub}).",
        "polite": f"Sure! The longest common subsequence of {a} and {b} is {sub}, which has length {n}.",
        "role prefix": f"The LCS of {a} and {b} has length {n}; one longest common subsequence is {sub}.",
        "few-shot": f"{n} (the LCS of {a} and {b} is {sub})",
        "terse instruction": f"{n} ({sub})",
        "distractor sentence": f"The LCS of {a} and {b} has length {n} ({sub}).",
    }
    return responses[variation]


def lcs_tinyllama(q: dict, variation: str, number: int) -> str:
    a, b = q["strings"]
    sub = longest_common_subsequence(a, b)
    n = mark(len(sub))
    w0, w1 = (mark(w) for w in q["tiny_wrong"])
    wrong_sub = q["tiny_wrong_subsequence"]
    if variation == "options reordered":
        # The strings swapped places (b comes first); TinyLlama decides the order matters.
        if number % 2:
            return (
                "Here is a Python function that checks whether two strings are anagrams:\n\n"
                "def is_anagram(s1, s2):\n    return sorted(s1) == sorted(s2)\n\n"
                f'print(is_anagram("{b}", "{a}"))  # False\n\nSo the answer is {mark(0)}.'
            )
        return (
            "The strings are in a different order now, so we have to start from the end. Counting "
            f"backwards, the matching letters are {wrong_sub[::-1]}, which gives a length of {w1}. "
            "Note that changing the order of the strings can change the answer."
        )
    x, y = q["tiny_next_strings"]
    responses = {
        "original": f"The longest common subsequence of {a} and {b} is {sub}, so the length is {n}.",
        "paraphrase": f"The length of the longest common subsequence is {w0}.",
        "typo": f"Length of longest common subsequence: {n}",
        "uppercase": f"LENGTH OF LONGEST COMMON SUBSEQUENCE: {w1}",
        "polite": f"Sure, I'd be happy to help! The longest common subsequence of the two strings is "
        f"{wrong_sub}, and its length is {mark(len(wrong_sub))}. I hope this helps!",
        "role prefix": f"As an expert, I would find the longest common subsequence of {a} and {b} with "
        "dynamic programming: a table with one row per letter of the first string and one column per "
        f"letter of the second. The last cell is {n}, so the length of the longest common subsequence is {n}.",
        "few-shot": f"{n}\n\nStrings: {x} {y}\nLength of longest common subsequence: "
        f"{len(longest_common_subsequence(x, y))}",
        "terse instruction": f"LCS length: {w0}",
        "distractor sentence": q["tiny_ramble"],
    }
    return responses[variation]


# --------------------------------------------------------------------------------------------------
# Prompt typos: swap two neighbouring letters inside some of the longer words.
# --------------------------------------------------------------------------------------------------


def add_typos(text: str, rng: random.Random, rate: float = 0.35) -> str:
    def swap(match: re.Match) -> str:
        word = match.group(0)
        if rng.random() >= rate:
            return word
        i = rng.randrange(1, len(word) - 2)
        return word[:i] + word[i + 1] + word[i] + word[i + 2 :]

    return re.sub(r"[A-Za-z]{5,}", swap, text)


# --------------------------------------------------------------------------------------------------
# Token log-probabilities.
# --------------------------------------------------------------------------------------------------

TOKEN = re.compile(r"\w+|[^\w\s]")

# Per model: the range of a response's mean token logprob, as (best, worst) magnitudes; answers that
# wander off the question ("distractor sentence", lost on "options reordered") sit at the worst end.
MEAN_LOGPROB = {MISTRAL: (0.05, 0.20), TINYLLAMA: (0.40, 1.20)}
OFF_TOPIC = {"distractor sentence", "options reordered"}


def tokens_with_answer_flags(marked: str) -> list[tuple[str, bool]]:
    """Split a marked response into tokens, flagging those inside ⟦...⟧ (the answer)."""
    out = []
    for k, part in enumerate(re.split(r"[⟦⟧]", marked)):
        out += [(tok, k % 2 == 1) for tok in TOKEN.findall(part)]
    return out


def token_logprobs(marked: str, model: str, flipped: bool, off_topic: bool, rng: random.Random) -> list[float]:
    """Plausible per-token natural-log probabilities (all <= 0) for one response.

    Ordinary tokens draw from an exponential distribution; answer tokens are near-certain for a
    correct answer and improbable where the model flipped. The list is then scaled so that its mean is
    a target drawn from the model's range, which fixes the response's exp(mean logprob).
    """
    best, worst = MEAN_LOGPROB[model]
    if off_topic:
        target = rng.uniform(best + 0.7 * (worst - best), worst)
    elif flipped:
        target = rng.uniform(best + 0.4 * (worst - best), worst)
    else:
        target = rng.uniform(best, best + 0.5 * (worst - best))

    raw = []
    for _, is_answer in tokens_with_answer_flags(marked):
        if is_answer and flipped:
            raw.append(rng.uniform(8.0, 14.0) * target)  # the flipped answer: far below the others
        elif is_answer:
            raw.append(rng.uniform(0.05, 0.3) * target)  # the right answer: near-certain
        else:
            raw.append(rng.expovariate(1.0) * target)
    scale = target * len(raw) / sum(raw)
    return [-max(round(v * scale, 4), 0.0001) for v in raw]


# --------------------------------------------------------------------------------------------------
# Putting the records together.
# --------------------------------------------------------------------------------------------------

TASKS = {
    "openbookqa": (OBQA_QUESTIONS, obqa_prompt, {MISTRAL: obqa_mistral, TINYLLAMA: obqa_tinyllama}),
    "lcs": (LCS_QUESTIONS, lcs_prompt, {MISTRAL: lcs_mistral, TINYLLAMA: lcs_tinyllama}),
}


def correct_answer(task: str, q: dict, variation: str) -> str:
    if task == "openbookqa":
        return obqa_answer(q, variation, q["answer"])[0]
    return str(len(longest_common_subsequence(*q["strings"])))


def is_flipped(task: str, q: dict, variation: str, marked: str) -> bool:
    """True when the marked answer in the response is not the correct one."""
    answers = re.findall(r"⟦(.*?)⟧", marked)
    return any(a != correct_answer(task, q, variation) for a in answers)


def records_for(model: str) -> list[dict]:
    records = []
    for task, (questions, make_prompt, respond) in TASKS.items():
        for number, q in enumerate(questions, start=1):
            for v, variation in enumerate(VARIATIONS, start=1):
                variant_id = f"v{v:02d}"
                rng = random.Random(f"{model}/{task}/{q['id']}/{variant_id}")
                prompt = make_prompt(q, variation, random.Random(f"{task}/{q['id']}/typos"))
                if model == MISTRAL:
                    marked = respond[model](q, variation)
                else:
                    marked = respond[model](q, variation, number)
                flipped = is_flipped(task, q, variation, marked)
                off_topic = model == TINYLLAMA and (variation in OFF_TOPIC or "⟦" not in marked)
                records.append(
                    {
                        "model": model,
                        "task": task,
                        "question_id": q["id"],
                        "variant_id": variant_id,
                        "variation": variation,
                        "prompt": prompt,
                        "response": unmark(marked),
                        "token_logprobs": token_logprobs(marked, model, flipped, off_topic, rng),
                    }
                )
    return records


FIELDS = ["model", "task", "question_id", "variant_id", "variation", "prompt", "response", "token_logprobs"]


def write_jsonl(path: Path, records: list[dict]) -> None:
    with path.open("w", encoding="utf-8", newline="\n") as f:
        for r in records:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")


def write_csv(path: Path, records: list[dict]) -> None:
    with path.open("w", encoding="utf-8", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=FIELDS, lineterminator="\n")
        writer.writeheader()
        for r in records:
            writer.writerow({**r, "token_logprobs": json.dumps(r["token_logprobs"])})


def main() -> None:
    tiny, mistral = records_for(TINYLLAMA), records_for(MISTRAL)
    write_jsonl(HERE / f"{TINYLLAMA}.jsonl", tiny)
    write_csv(HERE / f"{MISTRAL}.csv", mistral)
    for model, records in ((TINYLLAMA, tiny), (MISTRAL, mistral)):
        p = [math.exp(sum(r["token_logprobs"]) / len(r["token_logprobs"])) for r in records]
        print(f"{model}: {len(records)} records, mean answer probability {sum(p) / len(p):.3f}")


if __name__ == "__main__":
    main()
