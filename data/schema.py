"""Versioned SQL, one folder per backend: ``data/migrations/sqlite/`` and
``data/migrations/postgres/``, each holding ``NNNN_name.sql`` files.

Each backend applies its own files in version order, each once, each in its own transaction
together with its row in that database's ``schema_migrations`` table (``data/sqlite_db.py``,
``data/postgres_db.py``). A migration file must not contain ``BEGIN``/``COMMIT`` itself.
An applied file's SQL is never edited (its comments may be, to name files that moved).

The folders' numbers drifted apart before 0006 (SQLite's 0004 is PostgreSQL's 0002). From
0006 on, one change is one migration number in both folders, so PostgreSQL goes from 0003 to
0006: versions need not be contiguous, only increasing (each applied once, in order).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

MIGRATIONS_DIR = Path(__file__).with_name("migrations")
SQLITE_MIGRATIONS = MIGRATIONS_DIR / "sqlite"
POSTGRES_MIGRATIONS = MIGRATIONS_DIR / "postgres"

_MIGRATION_NAME = re.compile(r"^(\d+)_([A-Za-z0-9_\-]+)\.sql$")


@dataclass(frozen=True)
class Migration:
    version: int
    name: str
    path: Path

    def sql(self) -> str:
        return self.path.read_text(encoding="utf-8")


def discover_migrations(directory: Path) -> list[Migration]:
    """The migration files in ``directory``, sorted by version (duplicates are an error)."""
    if not directory.is_dir():
        raise RuntimeError(f"no migrations folder {directory}")
    found: dict[int, Migration] = {}
    for path in sorted(directory.glob("*.sql")):
        m = _MIGRATION_NAME.match(path.name)
        if not m:
            raise RuntimeError(f"bad migration file name {path.name!r}: expected NNNN_name.sql")
        version = int(m.group(1))
        if version in found:
            raise RuntimeError(
                f"two migrations with version {version}: {found[version].path.name}, {path.name}"
            )
        found[version] = Migration(version, m.group(2), path)
    return [found[v] for v in sorted(found)]
