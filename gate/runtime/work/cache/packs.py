"""Packs: the small entries of one namespace in one file, so a run that finds thousands of texts cached reads one
file per namespace instead of one per text (4,263 loose files were ~0.4 s of a no-change run's 2.3 s).

A pack is immutable: `PACK_MAGIC`, a 4-byte header length, a JSON header `{"entries": {key: [offset, length]}}`,
then the entries back to back, each the whole bytes of a loose entry (`entry.encode_entry`), so each still verifies
itself on read (its key is a digest of the namespace and the text: an entry never answers for another). Written
whole and renamed into place like a loose entry, and named by a digest of its bytes: two runs packing the same
entries write the same file.

When (`consolidate`, at the end of a run that may write): a namespace holding `PACK_AT` or more small loose
entries (at most `SMALL` bytes each: embeddings, classifier windows, pair scores; BERTScore's token states stay
loose -- at ~100 KB one file per entry costs nothing, and a run that changed nothing never reads them) has them
packed and the loose files removed; a namespace with more than `MAX_PACKS` packs has its small packs merged as
well, so a stream of small pull requests does not leave a pack per run. Eviction stays least recently used by
file: a pack is touched when an entry of it is used, and none is larger than `PACK_BYTES`.
"""

from __future__ import annotations

import hashlib
import json
import struct
from collections import defaultdict
from collections.abc import Iterable, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from pathlib import Path

from gate.io import blobs
from gate.runtime.work.cache.entry import decode_entry

PACK_MAGIC = b"llm-gate pack\x01"
PACK_SUFFIX = ".pack"
PACK_AT = 16  # fewer small loose entries stay loose (a pull request that changed a few texts)
SMALL = 64 * 1024
PACK_BYTES = 64 * 2**20  # the largest pack written: eviction frees at most this much at once
MAX_PACKS = 16
MERGE_BELOW = 8 * 2**20  # past MAX_PACKS, packs smaller than this are merged
_HEAD = len(PACK_MAGIC) + 4


@dataclass
class Pack:
    """An open pack of one namespace: where each of its entries lies. `used`: an entry of it served this run;
    `rejected`: its entries found damaged or of the wrong shape this run (`rewrite` leaves them out)."""

    reader: blobs.BlobReader
    entries: dict[str, tuple[int, int]]
    used: bool = False
    rejected: set[str] = field(default_factory=set)

    @property
    def path(self) -> Path:
        return self.reader.path

    def read(self, key: str) -> bytes | None:
        offset, length = self.entries[key]
        return self.reader.read(offset, length)


def open_pack(path: Path) -> Pack | None:
    """The pack at `path`, or None when it cannot be read or is no pack (a foreign or damaged file: its entries
    are misses)."""
    reader = blobs.open_reader(path)
    if reader is None:
        return None
    entries = _index(reader)
    if entries is None:
        reader.close()
        return None
    return Pack(reader, entries)


def _index(reader: blobs.BlobReader) -> dict[str, tuple[int, int]] | None:
    head = reader.read(0, _HEAD)
    if head is None or not head.startswith(PACK_MAGIC):
        return None
    (length,) = struct.unpack(">I", head[len(PACK_MAGIC):])
    raw = reader.read(_HEAD, length)
    if raw is None:
        return None
    start = _HEAD + length
    try:
        listed = json.loads(raw.decode("ascii"))["entries"].items()
        return {str(key): (start + int(offset), int(size)) for key, (offset, size) in listed}
    except (ValueError, KeyError, TypeError, AttributeError, UnicodeDecodeError):
        return None


def encode_pack(entries: Sequence[tuple[str, bytes]]) -> bytes:
    """A pack of `entries` (key, an entry's bytes), in the order given."""
    index, offset = {}, 0
    for key, raw in entries:
        index[key] = [offset, len(raw)]
        offset += len(raw)
    header = json.dumps({"entries": index}, separators=(",", ":")).encode("ascii")
    return b"".join([PACK_MAGIC, struct.pack(">I", len(header)), header, *(raw for _, raw in entries)])


def consolidate(files: Iterable[blobs.BlobFile]) -> bool:
    """Pack the small loose entries of each namespace that has enough of them (and merge its small packs when it
    has too many); True when anything changed. A write that fails leaves everything as it was."""
    loose: dict[Path, list[blobs.BlobFile]] = defaultdict(list)
    packed: dict[Path, list[blobs.BlobFile]] = defaultdict(list)
    for f in files:
        if f.path.name.endswith(PACK_SUFFIX):
            packed[f.path.parent].append(f)
        elif _is_loose_entry(f.path) and f.size <= SMALL:
            loose[f.path.parent.parent].append(f)
    changed = False
    for directory in sorted(set(loose) | set(packed)):
        packing = len(loose[directory]) >= PACK_AT
        crowded = len(packed[directory]) + packing > MAX_PACKS
        merged = [p for p in packed[directory] if p.size < MERGE_BELOW] if crowded else []
        if not packing and len(merged) < 2:
            continue
        try:
            _repack(directory, [f.path for f in loose[directory]], [f.path for f in merged])
        except OSError:
            return changed  # unwritable or full: the entries stay as they are, readable
        changed = True
    return changed


def rewrite(pack: Pack) -> None:
    """`pack` again without the entries this run rejected (a run that may write, after closing it)."""
    try:
        _repack(pack.path.parent, [], [pack.path], leave_out=pack.rejected)
    except OSError:
        pass  # unwritable: the damaged entries are rejected again next time


def _repack(directory: Path, loose: list[Path], merged: list[Path], leave_out: AbstractSet[str] = frozenset()) -> None:
    """The intact entries of `merged` packs and `loose` files as new packs; the old files removed."""
    entries: dict[str, bytes] = {}
    for path in merged:
        entries.update(_intact_entries(path))
    for path in loose:  # after the packs: a loose entry is the newer
        raw = blobs.read_blob(path)
        if raw is not None and decode_entry(raw, path.name) is not None:
            entries[path.name] = raw
    for key in leave_out:
        entries.pop(key, None)
    write_packs(directory, entries)
    for path in [*loose, *merged]:
        blobs.remove(path)


def write_packs(directory: Path, entries: dict[str, bytes]) -> list[Path]:
    """`entries` (key -> the whole bytes of an entry) as new packs in `directory`, none larger than `PACK_BYTES`;
    their paths. Raises OSError (unwritable, full)."""
    chunk: list[tuple[str, bytes]] = []
    written: list[Path] = []
    size = 0
    for key in sorted(entries):
        if chunk and size + len(entries[key]) > PACK_BYTES:
            written.append(_write(directory, chunk))
            chunk, size = [], 0
        chunk.append((key, entries[key]))
        size += len(entries[key])
    if chunk:
        written.append(_write(directory, chunk))
    return written


def _write(directory: Path, entries: Sequence[tuple[str, bytes]]) -> Path:
    data = encode_pack(entries)
    path = directory / f"pack-{hashlib.sha256(data).hexdigest()[:24]}{PACK_SUFFIX}"
    blobs.write_blob(path, data)
    return path


def _intact_entries(path: Path) -> dict[str, bytes]:
    """A pack's intact entries (damaged ones are dropped: recomputed when next needed)."""
    pack = open_pack(path)
    if pack is None:
        return {}
    try:
        return {key: raw for key in pack.entries
                if (raw := pack.read(key)) is not None and decode_entry(raw, key) is not None}
    finally:
        pack.reader.close()


def _is_loose_entry(path: Path) -> bool:
    name = path.name
    return len(name) == 64 and path.parent.name == name[:2] and all(c in "0123456789abcdef" for c in name)
