"""How much of an input the gate reads: bounds that keep a hostile or mistaken file an input error (exit 2) with
its place, never a run that exhausts memory or ends in "internal error".

Part of `gate.io`. The records readers (`gate.io.read`, `gate.io.jsonl`, `gate.io.tables`) read every file through
these; a file past a limit is one `Problem` naming the file (and the line), the limit and the fix. Each limit is far
above what a real record or file holds; none is a setting (split a file that is too large: a glob reads the parts).
"""

from __future__ import annotations

MiB = 1 << 20

# One record of a JSON Lines file: one line, its newline excluded. A JSONL file is read line by line (memory is
# one line and the records kept, never the whole text), so one line is the unit a parser must hold at once.
RECORD_BYTES = 16 * MiB
# One input file of records: JSON Lines, CSV, and the uncompressed parts of an XLSX workbook (a zip: its parts
# are what the reader inflates, so a small workbook cannot inflate to gigabytes).
FILE_BYTES = 1024 * MiB
# One JSON document (an array of records, an exercise file, a snapshot): parsed whole, with the line of every
# container, so it holds several times its size while parsed.
DOCUMENT_BYTES = 256 * MiB

SPLIT_FIX = "split it into several files (a glob such as outputs/*.jsonl reads them all)"


def size(limit: int) -> str:
    """A limit in words: '16 MiB', '1 GiB', '512 bytes'."""
    if limit >= 1 << 30 and limit % (1 << 30) == 0:
        return f"{limit >> 30} GiB"
    if limit >= MiB and limit % MiB == 0:
        return f"{limit >> 20} MiB"
    if limit >= 1 << 10 and limit % (1 << 10) == 0:
        return f"{limit >> 10} KiB"
    return f"{limit} bytes"
