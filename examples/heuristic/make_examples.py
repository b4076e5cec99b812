# ruff: noqa: E501  (the responses are kept verbatim: one prose paragraph per line)
"""Generate the heuristic example: three chat models answering coding and paraphrasing prompts.

    python examples/heuristic/make_examples.py      # rewrites both files below, byte for byte

Writes, next to this script:

    responses.jsonl                 gpt-4.1-mini and llama-3.1-8b-instruct, JSON Lines, one record per line
    mistral-7b-instruct.xlsx        mistral-7b-instruct, an Excel workbook: a header row, then one record per row

Every record has the fields

    model, category, prompt_id, prompt, response

with `category` "coding" (prompts C01-C08) or "paraphrasing" (paraphrasing, generation and creation
prompts P03, P05, P08, P11, P17, P20, P23, P25). The P-numbers are the ones the heuristic rubric's
prompt-specific rules know: P08 and P17 ask for an e-mail, P03 and P25 set a limit of 50 words, P23
turns a recipe into a poem.

The responses are hand-written to show typical behaviour of the three models (they are illustrative,
not real model output):

    gpt-4.1-mini            thorough: type hints, docstrings, input validation, try/except, complexity
                            notes and usage examples; e-mails with subject, greeting and sign-off;
                            stays within the 50-word limits.
    mistral-7b-instruct     decent but lighter: correct code with fewer docstrings and less validation;
                            its P08 e-mail has no greeting and no sign-off.
    llama-3.1-8b-instruct   terse: bare functions without docstrings, an O(n^2) nested-loop duplicate
                            finder (C03), an "O(1)" LRU cache built on list.remove (C06), no error
                            handling where the prompt asks for it (C02) or where it is needed (C08);
                            ignores the 50-word limit in P03.

Gaps, for the missing-data analysis (16 prompts x 3 models = 48 expected responses, 46 records):

    llama-3.1-8b-instruct   P11   an EMPTY response ("", a failed generation)
    mistral-7b-instruct     C07   no record at all
    mistral-7b-instruct     P20   no record at all

(The empty response is in the JSONL file on purpose: the table reader leaves empty cells out of a
record, so an empty XLSX cell would read as a record without a `response` field.)

The workbook is written deterministically: fixed document timestamps and fixed ZIP entry dates, so
re-running the script reproduces both files exactly.
"""

from __future__ import annotations

import io
import json
import zipfile
from datetime import datetime
from pathlib import Path

from openpyxl import Workbook
from openpyxl.styles import Alignment, Font
from openpyxl.xml.functions import tostring

HERE = Path(__file__).resolve().parent

GPT = "gpt-4.1-mini"
LLAMA = "llama-3.1-8b-instruct"
MISTRAL = "mistral-7b-instruct"

FIELDS = ["model", "category", "prompt_id", "prompt", "response"]


def text(block: str) -> str:
    """A hand-written block below, without the newline after the opening quotes and before the closing ones."""
    return block.strip("\n")


# --------------------------------------------------------------------------------------------------
# Prompts
# --------------------------------------------------------------------------------------------------

HEAT_ISLAND = (
    "Cities are often several degrees warmer than the countryside around them, a phenomenon known as "
    "the urban heat island effect. Asphalt, concrete and dark roofs absorb sunlight during the day and "
    "release the stored heat slowly at night, while the lack of vegetation means there is little shade "
    "or evaporative cooling. Waste heat from cars, air conditioners and industry adds to the problem. "
    "The consequences include higher energy use for cooling, worse air quality and more heat-related "
    "illness, especially among elderly people. Planting trees, installing green roofs and using "
    "reflective paving materials are among the measures that cities are adopting to keep temperatures down."
)

SLEEP = (
    "Sleep is not merely a period of rest for the body; it plays an active role in memory and learning. "
    "During deep sleep, the brain replays the experiences of the day and transfers important information "
    "from short-term to long-term storage. Students who sleep well after studying tend to remember more "
    "than those who stay up late cramming. Chronic sleep deprivation, by contrast, impairs attention, "
    "slows reaction times and makes it harder to regulate emotions."
)

PANCAKES = (
    "Ingredients: 200 g flour, 2 eggs, 300 ml milk, 1 tbsp sugar, a pinch of salt, butter for the pan.\n"
    "1. Whisk the flour, sugar and salt in a bowl.\n"
    "2. Add the eggs and milk and whisk until smooth.\n"
    "3. Let the batter rest for 10 minutes.\n"
    "4. Melt a little butter in a hot pan and pour in a ladle of batter.\n"
    "5. Cook until bubbles appear, flip, and cook for another minute.\n"
    "6. Serve warm with fruit or maple syrup."
)

MAINTENANCE_NOTICE = (
    "Please be advised that, owing to scheduled maintenance of the building's heating system, the "
    "third-floor offices will be inaccessible on Friday, 14 March, from 8:00 a.m. until 2:00 p.m. "
    "Employees affected by this closure are kindly requested to work remotely during the aforementioned "
    "period or to make use of the meeting rooms on the ground floor. We apologise for any inconvenience caused."
)

# prompt_id -> (category, prompt), in the order the records are written
PROMPTS: dict[str, tuple[str, str]] = {
    "C01": ("coding", "Write a Python function that returns the n-th Fibonacci number efficiently."),
    "C02": ("coding", "Write a Python function that reads a CSV file and returns the sum of a named numeric "
                      "column. Handle the case where the file does not exist."),
    "C03": ("coding", "Write a Python function that returns the duplicate elements of a list."),
    "C04": ("coding", "Write a Python function that checks whether a string is a valid e-mail address "
                      "using a regular expression."),
    "C05": ("coding", "Implement binary search in Python: given a sorted list and a target, return the index "
                      "of the target, or -1 if it is not in the list."),
    "C06": ("coding", "Implement an LRU (least recently used) cache class in Python with get(key) and "
                      "put(key, value) methods that both run in O(1) time."),
    "C07": ("coding", "Write a Python function that merges two sorted lists into a single sorted list "
                      "without calling sort() or sorted()."),
    "C08": ("coding", "Write a Python function that loads a JSON configuration file and fills in default "
                      "values for any missing keys."),
    "P03": ("paraphrasing", f"Summarise the following paragraph in at most 50 words:\n\n{HEAT_ISLAND}"),
    "P05": ("paraphrasing", f"Paraphrase the following paragraph in your own words, keeping its meaning:\n\n{SLEEP}"),
    "P08": ("paraphrasing", "Write a polite e-mail to your professor asking for a one-week extension on your "
                            "term paper because you were ill last week."),
    "P11": ("paraphrasing", "Write the opening paragraph of a short story set in a lighthouse during a storm."),
    "P17": ("paraphrasing", "Write an e-mail to an online shop complaining that your order #48213 arrived "
                            "damaged, and ask for a replacement or a refund."),
    "P20": ("paraphrasing", 'Explain the meaning of the proverb "A stitch in time saves nine" and give an '
                            "everyday example."),
    "P23": ("paraphrasing", f"Turn the following pancake recipe into a short rhyming poem:\n\n{PANCAKES}"),
    "P25": ("paraphrasing", "Rewrite the following formal announcement as a casual message to colleagues, "
                            f"in at most 50 words:\n\n{MAINTENANCE_NOTICE}"),
}


# --------------------------------------------------------------------------------------------------
# gpt-4.1-mini: thorough
# --------------------------------------------------------------------------------------------------

GPT_RESPONSES: dict[str, str] = {}

GPT_RESPONSES["C01"] = text(r'''
Here's an efficient way to compute the n-th Fibonacci number. The iterative approach runs in O(n) time and O(1) space, which avoids the exponential blow-up of the naive recursive solution.

```python
def fibonacci(n: int) -> int:
    """Return the n-th Fibonacci number (F(0) = 0, F(1) = 1).

    Args:
        n: A non-negative integer index.

    Returns:
        The n-th Fibonacci number.

    Raises:
        TypeError: If n is not an integer.
        ValueError: If n is negative.
    """
    if not isinstance(n, int):
        raise TypeError("n must be an integer")
    if n < 0:
        raise ValueError("n must be non-negative")

    previous, current = 0, 1
    for _ in range(n):
        previous, current = current, previous + current
    return previous
```

**Example usage:**

```python
print(fibonacci(0))   # 0
print(fibonacci(10))  # 55
print(fibonacci(50))  # 12586269025
```

**Complexity:**
- Time: O(n)
- Space: O(1)

If you need very large indices (e.g. n in the millions), you can use the *fast doubling* method, which runs in O(log n) time:

```python
def fibonacci_fast(n: int) -> int:
    """Return the n-th Fibonacci number using fast doubling (O(log n))."""
    if n < 0:
        raise ValueError("n must be non-negative")

    def _fib_pair(k: int) -> tuple[int, int]:
        # Returns (F(k), F(k + 1))
        if k == 0:
            return 0, 1
        a, b = _fib_pair(k // 2)
        c = a * (2 * b - a)
        d = a * a + b * b
        if k % 2 == 0:
            return c, d
        return d, c + d

    return _fib_pair(n)[0]
```
''')

GPT_RESPONSES["C02"] = text(r'''
Below is a robust function that reads a CSV file and sums a named column. It uses Python's built-in `csv` module, handles a missing file, and reports non-numeric values clearly.

```python
import csv
from pathlib import Path


def sum_csv_column(file_path: str, column: str) -> float:
    """Sum the numeric values of a column in a CSV file.

    Args:
        file_path: Path to the CSV file.
        column: Name of the column to sum (must appear in the header row).

    Returns:
        The sum of all numeric values in the column. Empty cells are skipped.

    Raises:
        FileNotFoundError: If the file does not exist.
        KeyError: If the column is not in the header.
        ValueError: If a cell contains a non-numeric value.
    """
    path = Path(file_path)
    if not path.is_file():
        raise FileNotFoundError(f"CSV file not found: {file_path}")

    total = 0.0
    with path.open(newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle)
        if reader.fieldnames is None or column not in reader.fieldnames:
            raise KeyError(f"Column '{column}' not found in {file_path}")

        # start=2 because line 1 is the header
        for line_number, row in enumerate(reader, start=2):
            cell = (row.get(column) or "").strip()
            if not cell:
                continue  # skip empty cells
            try:
                total += float(cell)
            except ValueError:
                raise ValueError(
                    f"Non-numeric value {cell!r} in column '{column}' on line {line_number}"
                ) from None
    return total
```

**Usage with error handling:**

```python
try:
    total = sum_csv_column("sales.csv", "amount")
    print(f"Total: {total:.2f}")
except FileNotFoundError as error:
    print(f"Error: {error}")
except (KeyError, ValueError) as error:
    print(f"Could not sum the column: {error}")
```

**Notes:**
- `csv.DictReader` maps each row to a dictionary keyed by the header, so you can look up the column by name.
- The function runs in O(n) time for n rows and uses O(1) extra memory, since it streams the file row by row.
- If you'd rather return `0.0` for a missing file instead of raising, replace the `raise FileNotFoundError(...)` line with `return 0.0`, though raising is usually clearer for callers.
''')

GPT_RESPONSES["C03"] = text(r'''
Here's an efficient solution that uses a set to track the elements we've already seen. It runs in O(n) time, compared to O(n²) for a nested-loop approach.

```python
from typing import Hashable, Iterable, List, TypeVar

T = TypeVar("T", bound=Hashable)


def find_duplicates(items: Iterable[T]) -> List[T]:
    """Return the elements that appear more than once, in order of first repetition.

    Each duplicate is reported once, even if it appears three or more times.

    Args:
        items: An iterable of hashable elements.

    Returns:
        A list of duplicated elements.

    Example:
        >>> find_duplicates([1, 2, 3, 2, 1, 2])
        [2, 1]
    """
    seen = set()
    reported = set()
    duplicates = []

    for item in items:
        if item in seen and item not in reported:
            duplicates.append(item)
            reported.add(item)
        seen.add(item)

    return duplicates
```

**Alternative using `collections.Counter`** (results follow the order of first occurrence):

```python
from collections import Counter


def find_duplicates_counter(items):
    """Return the elements that occur more than once, using Counter."""
    counts = Counter(items)
    return [item for item, count in counts.items() if count > 1]
```

**Complexity:**
- Time: O(n) — each set lookup and insertion is O(1) on average.
- Space: O(n) for the `seen` set.

**Note:** Both versions require hashable elements. For unhashable items such as lists, convert them to tuples first, or fall back to an O(n²) pairwise comparison.
''')

GPT_RESPONSES["C04"] = text(r'''
Here's a function that validates e-mail addresses with a regular expression. Fully validating an address against RFC 5322 with a regex is impractical, so this pattern covers the formats you'll encounter in practice.

```python
import re

# Local part: letters, digits and common special characters, dot-separated.
# Domain: one or more labels separated by dots, ending in a TLD of 2+ letters.
EMAIL_PATTERN = re.compile(
    r"^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*"
    r"@(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,}$"
)


def is_valid_email(address: str) -> bool:
    """Check whether a string looks like a valid e-mail address.

    Args:
        address: The string to check.

    Returns:
        True if the address matches the pattern, False otherwise.

    Raises:
        TypeError: If address is not a string.
    """
    if not isinstance(address, str):
        raise TypeError(f"Expected a string, got {type(address).__name__}")

    address = address.strip()
    if len(address) > 254:  # maximum length per RFC 5321
        return False

    return EMAIL_PATTERN.fullmatch(address) is not None
```

**Examples:**

```python
print(is_valid_email("alice@example.com"))         # True
print(is_valid_email("john.doe+news@mail.co.uk"))  # True
print(is_valid_email("no-at-sign.example.com"))    # False
print(is_valid_email("bob@.com"))                  # False
print(is_valid_email("eve@example"))               # False
```

**Notes:**
- The pattern is compiled once at module level, so repeated calls are efficient.
- `fullmatch` ensures the entire string matches, not just a prefix.
- A regex can only check the *format*. To confirm that an address actually exists, send a verification e-mail.
- For stricter checks (including DNS lookups), consider the `email-validator` package.
''')

GPT_RESPONSES["C05"] = text(r'''
Here's an iterative binary search, which runs in O(log n) time and O(1) space.

```python
from typing import Sequence


def binary_search(items: Sequence[int], target: int) -> int:
    """Return the index of target in a sorted sequence, or -1 if absent.

    Args:
        items: A sequence sorted in ascending order.
        target: The value to look for.

    Returns:
        The index of target, or -1 if it is not present.
    """
    low, high = 0, len(items) - 1

    while low <= high:
        mid = (low + high) // 2  # middle index
        if items[mid] == target:
            return mid
        if items[mid] < target:
            low = mid + 1   # target is in the right half
        else:
            high = mid - 1  # target is in the left half

    return -1
```

**Example:**

```python
numbers = [1, 3, 5, 7, 9, 11]
print(binary_search(numbers, 7))  # 3
print(binary_search(numbers, 4))  # -1
print(binary_search([], 1))       # -1
```

**Complexity:**
- Time: O(log n) — the search range halves on every iteration.
- Space: O(1).

**Tips:**
- The input **must** be sorted; otherwise the result is meaningless. If you're unsure, check it first with `all(a <= b for a, b in zip(items, items[1:]))` (O(n)).
- The standard library's `bisect` module does the same job:

```python
from bisect import bisect_left


def binary_search_bisect(items, target):
    index = bisect_left(items, target)
    return index if index < len(items) and items[index] == target else -1
```
''')

GPT_RESPONSES["C06"] = text(r'''
An LRU cache needs O(1) lookups and O(1) updates to the usage order. Python's `collections.OrderedDict` provides both: it is a hash map that remembers insertion order and can move a key to the end in constant time.

```python
from collections import OrderedDict
from typing import Any, Hashable


class LRUCache:
    """A fixed-capacity cache that evicts the least recently used item.

    Both get() and put() run in O(1) average time.
    """

    def __init__(self, capacity: int) -> None:
        if capacity <= 0:
            raise ValueError("capacity must be a positive integer")
        self.capacity = capacity
        self._data: OrderedDict[Hashable, Any] = OrderedDict()

    def get(self, key: Hashable) -> Any:
        """Return the value for key, or -1 if the key is not in the cache."""
        if key not in self._data:
            return -1
        # Mark as most recently used
        self._data.move_to_end(key)
        return self._data[key]

    def put(self, key: Hashable, value: Any) -> None:
        """Insert or update key, evicting the least recently used item if full."""
        if key in self._data:
            self._data.move_to_end(key)
        self._data[key] = value
        if len(self._data) > self.capacity:
            # popitem(last=False) removes the oldest (least recently used) entry
            self._data.popitem(last=False)

    def __len__(self) -> int:
        return len(self._data)
```

**Example:**

```python
cache = LRUCache(2)
cache.put("a", 1)
cache.put("b", 2)
print(cache.get("a"))  # 1  ("a" is now the most recently used)
cache.put("c", 3)      # evicts "b"
print(cache.get("b"))  # -1
print(cache.get("c"))  # 3
```

**How it works:**
- The `OrderedDict` keeps keys ordered from least to most recently used.
- `move_to_end` and `popitem(last=False)` are both O(1), so every operation runs in constant time.
- To implement it from scratch (a common interview follow-up), combine a `dict` that maps keys to nodes with a doubly linked list: the dict gives O(1) lookup, and the list gives O(1) reordering and eviction.
''')

GPT_RESPONSES["C07"] = text(r'''
Here's a linear-time merge using the two-pointer technique (the same merge step that merge sort uses):

```python
from typing import List, TypeVar

T = TypeVar("T")


def merge_sorted_lists(left: List[T], right: List[T]) -> List[T]:
    """Merge two ascending lists into a single ascending list.

    The inputs are not modified. The merge is stable: for equal elements,
    those from `left` come first.

    Args:
        left: A list sorted in ascending order.
        right: A list sorted in ascending order.

    Returns:
        A new list containing all elements of both inputs, in ascending order.
    """
    merged = []
    i, j = 0, 0

    # Repeatedly take the smaller of the two head elements
    while i < len(left) and j < len(right):
        if left[i] <= right[j]:
            merged.append(left[i])
            i += 1
        else:
            merged.append(right[j])
            j += 1

    # One list is exhausted; append the remainder of the other
    merged.extend(left[i:])
    merged.extend(right[j:])
    return merged
```

**Example:**

```python
print(merge_sorted_lists([1, 4, 7], [2, 3, 8, 10]))  # [1, 2, 3, 4, 7, 8, 10]
print(merge_sorted_lists([], [5, 6]))                # [5, 6]
```

**Complexity:**
- Time: O(n + m), where n and m are the lengths of the two lists.
- Space: O(n + m) for the output list.

The standard library also offers `heapq.merge(left, right)`, which returns a lazy iterator and accepts any number of sorted inputs.
''')

GPT_RESPONSES["C08"] = text(r'''
Here's a function that loads a JSON config file and merges it over a set of defaults. It handles a missing file, invalid JSON, and nested sections.

```python
import json
import logging
from copy import deepcopy
from pathlib import Path
from typing import Any, Dict

logger = logging.getLogger(__name__)

DEFAULT_CONFIG: Dict[str, Any] = {
    "host": "localhost",
    "port": 8080,
    "debug": False,
    "database": {"url": "sqlite:///app.db", "pool_size": 5},
}


def _merge(defaults: Dict[str, Any], overrides: Dict[str, Any]) -> Dict[str, Any]:
    """Recursively merge overrides into a copy of defaults."""
    result = deepcopy(defaults)
    for key, value in overrides.items():
        if isinstance(value, dict) and isinstance(result.get(key), dict):
            result[key] = _merge(result[key], value)
        else:
            result[key] = value
    return result


def load_config(path: str, defaults: Dict[str, Any] = DEFAULT_CONFIG) -> Dict[str, Any]:
    """Load a JSON config file and fill in defaults for missing keys.

    Args:
        path: Path to the JSON configuration file.
        defaults: Default values; nested dictionaries are merged key by key.

    Returns:
        The merged configuration dictionary.

    Raises:
        ValueError: If the file is not valid JSON or its top level is not an object.
    """
    config_path = Path(path)
    try:
        with config_path.open(encoding="utf-8") as handle:
            user_config = json.load(handle)
    except FileNotFoundError:
        logger.warning("Config file %s not found; using defaults", config_path)
        return deepcopy(defaults)
    except json.JSONDecodeError as error:
        raise ValueError(f"Invalid JSON in {config_path}: {error}") from error

    if not isinstance(user_config, dict):
        raise ValueError(f"Top level of {config_path} must be a JSON object")

    return _merge(defaults, user_config)
```

**Example** — given `config.json`:

```json
{"port": 9000, "database": {"pool_size": 10}}
```

```python
config = load_config("config.json")
print(config)
# {'host': 'localhost', 'port': 9000, 'debug': False,
#  'database': {'url': 'sqlite:///app.db', 'pool_size': 10}}
```

**Design notes:**
- `deepcopy` guarantees that the module-level defaults are never mutated through the returned dictionary.
- A missing file falls back to the defaults (with a warning), while a malformed file raises, since silently ignoring a broken config usually hides mistakes.
- The recursive merge is O(k) in the number of keys, which is negligible for config files.
''')

GPT_RESPONSES["P03"] = text(r'''
Cities are often hotter than nearby countryside because asphalt, concrete and dark roofs store heat, vegetation is scarce, and vehicles and air conditioners release waste heat. This urban heat island effect raises energy use, worsens air quality and increases heat-related illness; trees, green roofs and reflective paving counter it.
''')

GPT_RESPONSES["P05"] = text(r'''
Sleep does far more than let the body rest — it actively supports learning and memory. In the deepest stages of sleep, the brain revisits the day's experiences and moves important information from short-term into long-term memory. As a result, students who get a good night's sleep after studying usually retain more than classmates who cram late into the night. Going without enough sleep over long periods, on the other hand, weakens concentration, slows reactions and makes emotions harder to manage.
''')

GPT_RESPONSES["P08"] = text(r'''
Subject: Request for a One-Week Extension on My Term Paper

Dear Professor [Last Name],

I hope this message finds you well. I am writing to ask whether it would be possible to receive a one-week extension on my term paper for [Course Name], which is currently due on [Due Date].

Unfortunately, I was ill for most of last week and was unable to attend classes or work on the paper during that time. I have a doctor's note confirming this, which I would be happy to share with you.

I have already completed most of my research and an outline, so with an extension until [New Date], I am confident that I can submit work that reflects my best effort. If an extension is not possible, I would be grateful for any alternative you might suggest.

Thank you very much for your time and understanding.

Kind regards,
[Your Full Name]
[Student ID]
[Course Name and Section]
''')

GPT_RESPONSES["P11"] = text(r'''
The storm reached Greyhaven Light an hour before midnight, and by then Maren had already stopped counting the waves. They came out of the dark like moving hills, slamming against the rock so hard that the whole tower shuddered and the brass instruments on her desk chattered like teeth. Above her, the great lamp turned and turned, throwing its beam across a sea that seemed determined to swallow it. She had kept the light for eleven winters and never once seen it fail — but tonight, between the roar of the wind and the groan of the iron stairs, she was sure she heard something else: three slow knocks on the door at the bottom of the tower, where no one could possibly be standing.
''')

GPT_RESPONSES["P17"] = text(r'''
Subject: Damaged Item in Order #48213 – Request for Replacement or Refund

Dear Customer Service Team,

I am writing to let you know that my recent order, #48213, arrived damaged. The package was delivered on [Delivery Date], and when I opened it, I found that the ceramic table lamp inside had a large crack across its base and the lampshade was dented. The outer box was also visibly crushed, so I believe the damage occurred during shipping.

I have attached photos of the damaged item and the packaging for your reference.

Could you please arrange one of the following:
1. A replacement lamp shipped to me at no additional cost, or
2. A full refund to my original payment method.

Please also let me know whether you need me to return the damaged item and, if so, how. I would appreciate a response within the next five business days.

Thank you for your help in resolving this matter.

Kind regards,
[Your Name]
[Your Address]
[Your Phone Number]
''')

GPT_RESPONSES["P20"] = text(r'''
"A stitch in time saves nine" means that dealing with a small problem as soon as you notice it saves you much more work later. The image comes from sewing: if you mend a small tear with a single stitch right away, you stop it from growing into a large hole that would take nine (that is, many) stitches to repair.

The proverb is about prevention and timeliness. Putting off a minor fix rarely makes the problem disappear — more often it grows, and so does the effort needed to solve it.

**Everyday example:** Imagine you notice a small leak under your kitchen sink. Tightening the connection or replacing a washer takes ten minutes and costs almost nothing. If you ignore it, however, the water may slowly soak into the cabinet and the floor, and weeks later you could be paying for a plumber, new flooring and mould removal. Fixing the drip right away is your "stitch in time."
''')

GPT_RESPONSES["P23"] = text(r'''
**Pancake Morning**

Two hundred grams of flour, a pinch of salt,
A spoon of sugar — whisk them, do not halt!
Crack in two eggs, pour milk till smooth and bright,
Then let the batter rest ten minutes, just right.

Melt golden butter in a pan that's hot,
Pour in a ladle, right into the spot.
When bubbles rise, it's time to flip with care,
One minute more — the scent fills all the air.

Stack them up warm, the morning's sweetest treat,
With fruit or maple syrup, ready to eat!
''')

GPT_RESPONSES["P25"] = text(r'''
Heads up, everyone! The third floor is closed this Friday (14 March) from 8 a.m. to 2 p.m. while the heating gets fixed. Feel free to work from home that morning or grab one of the meeting rooms on the ground floor. Sorry for the hassle!
''')


# --------------------------------------------------------------------------------------------------
# llama-3.1-8b-instruct: terse, sometimes brute force, little error handling
# --------------------------------------------------------------------------------------------------

LLAMA_RESPONSES: dict[str, str] = {}

LLAMA_RESPONSES["C01"] = text(r'''
Here is a Python function that calculates the n-th Fibonacci number using memoization:

```python
def fibonacci(n, memo={}):
    if n <= 1:
        return n
    if n not in memo:
        memo[n] = fibonacci(n-1, memo) + fibonacci(n-2, memo)
    return memo[n]
```

You can use it like this:

```python
print(fibonacci(10))  # Output: 55
```

This function stores previously calculated Fibonacci numbers in a dictionary, so it doesn't have to calculate them again. This makes it much faster than a simple recursive approach.
''')

# Asked to handle a missing file: prints a message and returns None, no try/except.
LLAMA_RESPONSES["C02"] = text(r'''
Here is a Python function that reads a CSV file and returns the sum of a column:

```python
import pandas as pd
import os

def sum_column(file_path, column_name):
    if not os.path.exists(file_path):
        print("File not found")
        return None
    df = pd.read_csv(file_path)
    return df[column_name].sum()
```

Example usage:

```python
total = sum_column('data.csv', 'price')
print(total)
```

This function uses the pandas library to read the CSV file and sum the column. If the file does not exist, it prints an error message and returns None.
''')

# Brute force: O(n^2) nested loops (plus an O(n) `not in` on a list).
LLAMA_RESPONSES["C03"] = text(r'''
Here is a Python function that finds duplicates in a list:

```python
def find_duplicates(lst):
    duplicates = []
    for i in range(len(lst)):
        for j in range(i + 1, len(lst)):
            if lst[i] == lst[j] and lst[i] not in duplicates:
                duplicates.append(lst[i])
    return duplicates

print(find_duplicates([1, 2, 3, 2, 4, 1]))  # Output: [1, 2]
```

This function uses a nested loop to compare each element with every other element in the list. If a duplicate is found, it is added to the `duplicates` list.
''')

LLAMA_RESPONSES["C04"] = text(r'''
Here is a Python function that validates an email address using a regular expression:

```python
import re

def validate_email(email):
    pattern = r'^[a-zA-Z0-9._%+-]+@[a-zA-Z0-9.-]+\.[a-zA-Z]{2,}$'
    if re.match(pattern, email):
        return True
    else:
        return False

print(validate_email("test@example.com"))  # True
print(validate_email("invalid-email"))  # False
```

This function uses the `re.match` function to check if the email matches the pattern. The pattern checks for the local part, the @ symbol, the domain name and the top-level domain.
''')

LLAMA_RESPONSES["C05"] = text(r'''
Here is a Python implementation of binary search:

```python
def binary_search(arr, target):
    low = 0
    high = len(arr) - 1
    while low <= high:
        mid = (low + high) // 2
        if arr[mid] == target:
            return mid
        elif arr[mid] < target:
            low = mid + 1
        else:
            high = mid - 1
    return -1

arr = [2, 5, 8, 12, 16, 23, 38, 56, 72, 91]
print(binary_search(arr, 23))  # Output: 5
```

The time complexity of this algorithm is O(log n).
''')

# Claims O(1), but list.remove and list.pop(0) are O(n).
LLAMA_RESPONSES["C06"] = text(r'''
Here is an implementation of an LRU cache in Python:

```python
class LRUCache:
    def __init__(self, capacity):
        self.capacity = capacity
        self.cache = {}
        self.order = []

    def get(self, key):
        if key in self.cache:
            self.order.remove(key)
            self.order.append(key)
            return self.cache[key]
        return -1

    def put(self, key, value):
        if key in self.cache:
            self.order.remove(key)
        elif len(self.cache) >= self.capacity:
            lru_key = self.order.pop(0)
            del self.cache[lru_key]
        self.cache[key] = value
        self.order.append(key)
```

Example usage:

```python
cache = LRUCache(2)
cache.put(1, 1)
cache.put(2, 2)
print(cache.get(1))  # Output: 1
cache.put(3, 3)
print(cache.get(2))  # Output: -1
```

The cache uses a dictionary for O(1) lookups and a list to keep track of the order in which keys were used.
''')

LLAMA_RESPONSES["C07"] = text(r'''
Here is a function that merges two sorted lists:

```python
def merge_lists(list1, list2):
    result = []
    i = j = 0
    while i < len(list1) and j < len(list2):
        if list1[i] < list2[j]:
            result.append(list1[i])
            i += 1
        else:
            result.append(list2[j])
            j += 1
    result += list1[i:]
    result += list2[j:]
    return result

print(merge_lists([1, 3, 5], [2, 4, 6]))  # [1, 2, 3, 4, 5, 6]
```
''')

# No error handling: a missing or malformed file raises straight through.
LLAMA_RESPONSES["C08"] = text(r'''
Here is a function that loads a JSON config file with default values:

```python
import json

def load_config(file_path):
    defaults = {
        "host": "localhost",
        "port": 8080,
        "debug": False
    }
    with open(file_path) as f:
        config = json.load(f)
    for key in defaults:
        if key not in config:
            config[key] = defaults[key]
    return config
```

This function loads the JSON file and adds any missing keys from the defaults dictionary.
''')

# Ignores the 50-word limit (about 90 words).
LLAMA_RESPONSES["P03"] = text(r'''
The urban heat island effect refers to the phenomenon where cities are warmer than the surrounding countryside. This happens because materials like asphalt, concrete and dark roofs absorb heat during the day and release it at night, and there is not much vegetation to provide shade or cooling. Waste heat from cars, air conditioners and industry also contributes. This leads to higher energy use, poorer air quality and more heat-related illnesses, particularly among the elderly. To combat this, cities are planting trees, installing green roofs and using reflective paving materials.
''')

LLAMA_RESPONSES["P05"] = text(r'''
Sleep is not just a time for the body to rest, it also helps with memory and learning. When we are in deep sleep, the brain goes over what happened during the day and moves important information from short-term memory to long-term memory. Students who get enough sleep after studying remember more than students who stay up late to cram. But not getting enough sleep over a long time makes it harder to pay attention, slows down reaction times and makes it harder to control emotions.
''')

LLAMA_RESPONSES["P08"] = text(r'''
Subject: Request for Extension on Term Paper

Dear Professor [Name],

I am writing to request a one-week extension on my term paper. I was sick last week and was unable to work on it. I would really appreciate it if you could give me some extra time to finish it.

Thank you for your understanding.

Sincerely,
[Your Name]
''')

# A failed generation: the model returned nothing.
LLAMA_RESPONSES["P11"] = ""

LLAMA_RESPONSES["P17"] = text(r'''
Subject: Damaged Order #48213

Dear Sir/Madam,

I recently received my order #48213 and it arrived damaged. The box was crushed and the item inside is broken. I am very disappointed as I was looking forward to using it.

I would like to request a replacement or a full refund. Please let me know how to proceed.

Regards,
[Your Name]
''')

LLAMA_RESPONSES["P20"] = text(r'''
The proverb "A stitch in time saves nine" means that if you fix a problem right away, you will save yourself from having to do more work later. For example, if you notice a small hole in your shirt and sew it up right away, it won't turn into a bigger hole that needs more stitches to fix.
''')

LLAMA_RESPONSES["P23"] = text(r'''
Here is a poem based on the pancake recipe:

Mix flour, sugar and salt in a bowl,
Add eggs and milk, that is the goal.
Whisk it smooth and let it rest,
Ten minutes makes the batter best.

Melt some butter in the pan,
Pour the batter, yes you can!
When bubbles show, then flip it round,
Serve them warm, the best in town.
''')

LLAMA_RESPONSES["P25"] = text(r'''
Hey team, just a heads up - the third floor will be closed on Friday, March 14 from 8am to 2pm for heating maintenance. Please work from home or use the ground floor meeting rooms during that time. Sorry for any inconvenience!
''')


# --------------------------------------------------------------------------------------------------
# mistral-7b-instruct: decent but lighter; no answer at all for C07 and P20
# --------------------------------------------------------------------------------------------------

MISTRAL_RESPONSES: dict[str, str] = {}

MISTRAL_RESPONSES["C01"] = text(r'''
Sure! Here's an efficient way to calculate the n-th Fibonacci number in Python using an iterative approach:

```python
def fibonacci(n):
    """
    Returns the n-th Fibonacci number.
    """
    if n < 0:
        raise ValueError("n must be a non-negative integer")
    a, b = 0, 1
    for _ in range(n):
        a, b = b, a + b
    return a
```

This function has a time complexity of O(n) and uses constant space, which makes it much more efficient than the recursive version (which has exponential time complexity).

Example:

```python
print(fibonacci(10))  # 55
```
''')

MISTRAL_RESPONSES["C02"] = text(r'''
Here's a Python function that reads a CSV file, sums a given column, and handles the case where the file doesn't exist:

```python
import csv

def sum_column(filename, column_name):
    total = 0
    try:
        with open(filename, 'r') as file:
            reader = csv.DictReader(file)
            for row in reader:
                total += float(row[column_name])
    except FileNotFoundError:
        print(f"Error: The file '{filename}' was not found.")
        return None
    except KeyError:
        print(f"Error: Column '{column_name}' does not exist in the file.")
        return None
    return total
```

You can call this function with the filename and the column name:

```python
result = sum_column('data.csv', 'amount')
if result is not None:
    print(f"The sum is: {result}")
```

Note that this function assumes all values in the column are numeric. If there are non-numeric values, a `ValueError` will be raised.
''')

MISTRAL_RESPONSES["C03"] = text(r'''
You can find duplicates in a list by counting how often each element occurs. Here's a function that uses a dictionary to do that:

```python
def find_duplicates(lst):
    # Count occurrences of each element
    counts = {}
    for item in lst:
        counts[item] = counts.get(item, 0) + 1

    # Keep the elements that occur more than once
    return [item for item, count in counts.items() if count > 1]


my_list = [1, 2, 3, 4, 2, 5, 6, 3, 7]
print(find_duplicates(my_list))  # Output: [2, 3]
```

This approach runs in O(n) time because dictionary lookups are O(1) on average. Note that the elements of the list must be hashable.
''')

MISTRAL_RESPONSES["C04"] = text(r'''
Here's a function that uses the `re` module to validate an email address:

```python
import re

def is_valid_email(email):
    """Check if the given string is a valid email address."""
    pattern = r'^[\w\.-]+@[\w\.-]+\.\w{2,}$'
    return re.match(pattern, email) is not None

# Test the function
emails = ["john.doe@example.com", "jane_doe@mail.org", "invalid.email@", "@nodomain.com"]
for email in emails:
    print(f"{email}: {is_valid_email(email)}")
```

Output:
```
john.doe@example.com: True
jane_doe@mail.org: True
invalid.email@: False
@nodomain.com: False
```

Keep in mind that this regular expression does not cover every valid email format defined in RFC 5322, but it works for most common cases.
''')

MISTRAL_RESPONSES["C05"] = text(r'''
Here's a recursive implementation of binary search in Python:

```python
def binary_search(arr, target, low=0, high=None):
    if high is None:
        high = len(arr) - 1

    if low > high:
        return -1  # Target not found

    mid = (low + high) // 2
    if arr[mid] == target:
        return mid
    elif arr[mid] < target:
        return binary_search(arr, target, mid + 1, high)
    else:
        return binary_search(arr, target, low, mid - 1)


sorted_list = [1, 3, 5, 7, 9, 11, 13]
print(binary_search(sorted_list, 9))  # Output: 4
print(binary_search(sorted_list, 4))  # Output: -1
```

The function halves the search interval at each step, so its time complexity is O(log n). The recursion depth is also O(log n), so it won't hit Python's recursion limit even for very large lists.
''')

MISTRAL_RESPONSES["C06"] = text(r'''
Here's an LRU cache implementation using `OrderedDict` from the `collections` module, which keeps track of the order in which keys were used:

```python
from collections import OrderedDict

class LRUCache:
    def __init__(self, capacity: int):
        self.cache = OrderedDict()
        self.capacity = capacity

    def get(self, key):
        if key not in self.cache:
            return -1
        self.cache.move_to_end(key)  # mark as recently used
        return self.cache[key]

    def put(self, key, value):
        if key in self.cache:
            self.cache.move_to_end(key)
        self.cache[key] = value
        if len(self.cache) > self.capacity:
            self.cache.popitem(last=False)  # remove least recently used
```

Both `get` and `put` run in O(1) time because `OrderedDict` is backed by a hash table and a doubly linked list.

Example:

```python
cache = LRUCache(2)
cache.put(1, "one")
cache.put(2, "two")
cache.get(1)           # returns "one"
cache.put(3, "three")  # evicts key 2
cache.get(2)           # returns -1
```
''')

# C07: no record (mistral never answered it).

MISTRAL_RESPONSES["C08"] = text(r'''
Here's a function that loads a JSON configuration file and fills in missing keys with default values:

```python
import json

DEFAULTS = {
    "log_level": "INFO",
    "timeout": 30,
    "retries": 3,
}

def load_config(path, defaults=DEFAULTS):
    try:
        with open(path, "r") as f:
            config = json.load(f)
    except FileNotFoundError:
        print(f"Config file {path} not found, using defaults.")
        config = {}
    except json.JSONDecodeError as e:
        print(f"Could not parse {path}: {e}")
        config = {}

    # Fill in missing keys
    return {**defaults, **config}
```

The `{**defaults, **config}` syntax creates a new dictionary in which values from `config` override the defaults, so any key missing from the file gets its default value. Note that this only merges top-level keys; nested dictionaries are not merged recursively.
''')

MISTRAL_RESPONSES["P03"] = text(r'''
The urban heat island effect makes cities warmer than nearby rural areas, as paved surfaces and dark roofs trap heat and there is little greenery. It increases energy use, air pollution and heat-related illness. Cities are responding with trees, green roofs and reflective pavements.
''')

MISTRAL_RESPONSES["P05"] = text(r'''
Rather than simply giving the body a break, sleep actively helps us learn and remember. While we are deeply asleep, the brain replays the day's events and shifts key information from short-term to long-term memory. That is why students who sleep properly after studying generally recall more than those who cram late into the night. Ongoing lack of sleep, however, reduces attention, slows reactions and makes it more difficult to keep emotions in check.
''')

# No greeting and no sign-off.
MISTRAL_RESPONSES["P08"] = text(r'''
Subject: Extension Request for Term Paper

I wanted to reach out regarding the term paper that is due next week. Unfortunately, I was ill last week and missed several days of work on the project, which has put me behind schedule. I have attached a note from my doctor for your reference.

I would be very grateful if you would consider granting me a one-week extension so that I can complete the paper to the standard you expect. I have already finished most of the research and am confident that the additional time will allow me to complete the writing and revisions.

Thank you for considering my request. Please let me know if you need any further information.
''')

MISTRAL_RESPONSES["P11"] = text(r'''
The wind howled around the old lighthouse like a wounded animal, rattling the windows and sending sheets of rain against the glass. Thomas climbed the spiral staircase one step at a time, his lantern swinging in his hand and casting long shadows on the curved stone walls. He had been the keeper here for twenty years, but he had never seen a storm like this one. Far below, the sea crashed against the rocks with a sound like thunder, and somewhere out in the darkness, a ship's horn called out for help.
''')

MISTRAL_RESPONSES["P17"] = text(r'''
Subject: Complaint About Damaged Order #48213

Dear Customer Support,

I am contacting you about my order #48213, which I received yesterday. Unfortunately, the item arrived damaged: the box was torn open on one side and the glass blender jar inside was cracked, so the product cannot be used safely.

I have attached photos showing the damage to both the packaging and the product. I would appreciate it if you could either send me a replacement or issue a full refund, whichever can be processed more quickly.

I look forward to your prompt reply.

Best regards,
[Your Name]
''')

# P20: no record (mistral never answered it).

MISTRAL_RESPONSES["P23"] = text(r'''
In a bowl we start our quest,
Flour, sugar, salt — the best,
Two eggs cracked and milk poured in,
Whisk until it's smooth and thin.

Let it rest for minutes ten,
Heat the butter in the pan then,
Pour a ladle, watch it bubble,
Flip it over, it's no trouble!

One more minute, golden brown,
Serve it warm to all in town,
Top with fruit or syrup sweet,
A pancake breakfast, what a treat!
''')

MISTRAL_RESPONSES["P25"] = text(r'''
Hi all! Quick note: the heating on the third floor is getting some maintenance this Friday, March 14, so the offices there will be off-limits from 8 to 2. You can work from home or set up in the ground-floor meeting rooms. Thanks for bearing with us!
''')


RESPONSES = {GPT: GPT_RESPONSES, LLAMA: LLAMA_RESPONSES, MISTRAL: MISTRAL_RESPONSES}


# --------------------------------------------------------------------------------------------------
# Records and files
# --------------------------------------------------------------------------------------------------


def records_for(model: str) -> list[dict]:
    """One record per prompt the model answered, in prompt order; an unanswered prompt has no record."""
    records = []
    for prompt_id, (category, prompt) in PROMPTS.items():
        if prompt_id not in RESPONSES[model]:
            continue
        records.append({"model": model, "category": category, "prompt_id": prompt_id, "prompt": prompt,
                        "response": RESPONSES[model][prompt_id]})
    return records


def write_jsonl(path: Path, records: list[dict]) -> None:
    with path.open("w", encoding="utf-8", newline="\n") as f:
        for r in records:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")


# Fixed timestamps so that the workbook is reproducible byte for byte.
FIXED_DOC_TIME = datetime(2025, 1, 1, 0, 0, 0)
FIXED_ZIP_TIME = (2025, 1, 1, 0, 0, 0)


def write_xlsx(path: Path, records: list[dict]) -> None:
    workbook = Workbook()
    sheet = workbook.active
    sheet.title = "responses"
    sheet.append(FIELDS)
    for r in records:
        sheet.append([r[name] for name in FIELDS])

    # Only cosmetics for a human opening the file: bold header, frozen header row, wrapped long text.
    for cell in sheet[1]:
        cell.font = Font(bold=True)
    sheet.freeze_panes = "A2"
    for column, width in zip("ABCDE", (22, 14, 11, 60, 100), strict=True):
        sheet.column_dimensions[column].width = width
    for row in sheet.iter_rows(min_row=2, min_col=4, max_col=5):
        for cell in row:
            cell.alignment = Alignment(wrap_text=True, vertical="top")

    buffer = io.BytesIO()
    workbook.save(buffer)

    # openpyxl stamps the document's "modified" property and every ZIP entry with the current time
    # when it saves; rewrite the document properties and the entries with fixed times.
    workbook.properties.creator = "examples/heuristic/make_examples.py"
    workbook.properties.created = FIXED_DOC_TIME
    workbook.properties.modified = FIXED_DOC_TIME
    core_properties = tostring(workbook.properties.to_tree())
    with zipfile.ZipFile(io.BytesIO(buffer.getvalue())) as source, \
            zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as target:
        for info in source.infolist():
            data = core_properties if info.filename == "docProps/core.xml" else source.read(info.filename)
            entry = zipfile.ZipInfo(info.filename, date_time=FIXED_ZIP_TIME)
            entry.compress_type = zipfile.ZIP_DEFLATED
            entry.external_attr = info.external_attr
            target.writestr(entry, data)


def main() -> None:
    jsonl = records_for(GPT) + records_for(LLAMA)
    mistral = records_for(MISTRAL)
    write_jsonl(HERE / "responses.jsonl", jsonl)
    write_xlsx(HERE / f"{MISTRAL}.xlsx", mistral)
    for model in (GPT, LLAMA, MISTRAL):
        records = records_for(model)
        empty = [r["prompt_id"] for r in records if not r["response"].strip()]
        missing = [p for p in PROMPTS if p not in RESPONSES[model]]
        print(f"{model}: {len(records)} records"
              + (f", empty: {', '.join(empty)}" if empty else "")
              + (f", missing: {', '.join(missing)}" if missing else ""))


if __name__ == "__main__":
    main()
