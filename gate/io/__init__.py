"""Every file the gate reads or writes goes through here (DESIGN.md §2): readers that report every
problem with its file and line, and atomic writers (`write_stream_atomic` is the one that every
whole-file write goes through: permissions, fsync and the temporary file are decided there). `redact` keeps
secrets out of every stream and file the gate writes and neutralises workflow commands in what it prints."""

from gate.io.append import append_line_locked, read_bytes_or_empty
from gate.io.gitindex import tracked_files
from gate.io.ownership import handed_back
from gate.io.read import JsonDocument, expand_globs, read_binary, read_json_document, read_json_quiet, read_records
from gate.io.report_dir import check_report_directory, folder_name, report_directory
from gate.io.source import RawRecord, SourceRef, display_path, read_text
from gate.io.write import (
    append_text,
    sha256_files,
    to_json,
    write_bytes_atomic,
    write_csv_atomic,
    write_json_atomic,
    write_stream_atomic,
    write_text_atomic,
    write_xlsx_atomic,
)

__all__ = [
    "JsonDocument", "RawRecord", "SourceRef", "append_line_locked", "append_text", "check_report_directory",
    "display_path", "expand_globs", "folder_name", "handed_back", "read_binary", "read_bytes_or_empty",
    "read_json_document", "read_json_quiet",
    "read_records", "read_text", "report_directory", "sha256_files", "to_json", "tracked_files", "write_bytes_atomic",
    "write_csv_atomic", "write_json_atomic", "write_stream_atomic", "write_text_atomic", "write_xlsx_atomic",
]
