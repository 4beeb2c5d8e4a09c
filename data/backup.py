"""``python -m data.backup --to FILE [--from FILE]``: a consistent copy of the bot's SQLite
database, taken while the bot runs.

The copy is SQLite's online backup API (``sqlite3.Connection.backup``) in one step: it
reads one snapshot of the database, so it holds every transaction committed before it and
none after, and the bot goes on writing meanwhile (the database is in WAL mode, where a
reader never blocks the writer). The copy is written beside ``--to`` and renamed into place
once it is whole and passes SQLite's integrity check, so ``--to`` is never half a database.

``--from`` defaults to the database of ``.env``: ``DATABASE_PATH`` (or data/capsa.sqlite3).
With ``DATABASE_URL`` set the database is PostgreSQL, which ``pg_dump`` backs up (README).
Exit status: 0 copied, 2 a wrong argument (said in one line), 1 the copy failed.
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import sys
from collections.abc import Sequence
from pathlib import Path

from dotenv import find_dotenv, load_dotenv

DEFAULT_PATH = "data/capsa.sqlite3"  # as data.open_repository and bot.py's DATABASE_PATH


class BackupError(Exception):
    """A wrong argument, said in one line."""


def default_source() -> Path:
    """The database of ``.env`` (the working directory's, or the nearest above it)."""
    load_dotenv(find_dotenv(usecwd=True))
    if os.environ.get("DATABASE_URL", "").strip():
        raise BackupError(
            "DATABASE_URL is set: the database is PostgreSQL; back it up with pg_dump"
            ' (pg_dump --format=custom --file=capsa.dump "$DATABASE_URL"), or give'
            " --from FILE for a SQLite file"
        )
    return Path(os.environ.get("DATABASE_PATH", "").strip() or DEFAULT_PATH)


def backup(source: Path, target: Path) -> int:
    """Copy the live SQLite database ``source`` to ``target`` (a new file); the copy's size
    in pages."""
    if not source.is_file():
        raise BackupError(f"--from {source}: no such database file")
    if target.exists():
        raise BackupError(f"--to {target}: the file exists; give a new file name")
    if not target.parent.is_dir():
        raise BackupError(f"--to {target}: the directory {target.parent} does not exist")
    partial = target.with_name(f".{target.name}.partial")
    partial.unlink(missing_ok=True)
    try:
        src = sqlite3.connect(source, timeout=30)
        try:
            dst = sqlite3.connect(partial)
            try:
                src.backup(dst)  # one step: one snapshot, the bot's writes go on
                pages = int(dst.execute("PRAGMA page_count").fetchone()[0])
                verdict = dst.execute("PRAGMA integrity_check").fetchone()[0]
            finally:
                dst.close()
        finally:
            src.close()
        if verdict != "ok":
            raise sqlite3.DatabaseError(f"the copy fails SQLite's integrity check: {verdict}")
        partial.replace(target)
    finally:
        partial.unlink(missing_ok=True)
    return pages


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m data.backup",
        description="Copy the bot's SQLite database while the bot runs (SQLite's online"
        " backup API). Restore: stop the bot, put the copy at DATABASE_PATH, start it.",
    )
    parser.add_argument("--to", required=True, type=Path, help="the new file to write")
    parser.add_argument(
        "--from",
        dest="source",
        type=Path,
        default=None,
        help="the database to copy (default: DATABASE_PATH of .env, else " + DEFAULT_PATH + ")",
    )
    args = parser.parse_args(argv)
    try:
        source = args.source if args.source is not None else default_source()
        if source.resolve() == args.to.resolve():
            raise BackupError("--from and --to are the same file: give another --to")
        pages = backup(source, args.to)
    except BackupError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    except sqlite3.Error as err:
        print(f"error: the copy of {source} failed: {err}", file=sys.stderr)
        return 1
    size = args.to.stat().st_size
    print(f"copied {source} to {args.to} ({pages} pages, {size / 1e6:.1f} MB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
