"""docs/search.md's table of document formats, written from the readers' own modules.

    python scripts/document_formats.py           # write the table into the page
    python scripts/document_formats.py --check   # exit 1 when the table is stale

A test (tests/unit/test_document_readers.py) fails when the table and the readers differ,
so a format added or changed in its module is a run of this script away from its row.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

PAGE = Path(__file__).resolve().parent.parent / "docs" / "search.md"
BEGIN = "<!-- formats: written by scripts/document_formats.py from the readers' modules -->"
END = "<!-- end of formats -->"


def render() -> str:
    from ponder.services.search.backends.local.formats import every_reader

    rows = [
        "| format | suffixes | read by | keeps | drops |",
        "|---|---|---|---|---|",
    ]
    for reader in every_reader():
        suffixes = ", ".join(f"`{suffix}`" for suffix in reader.suffixes)
        cells = [reader.name, suffixes, reader.library, reader.keeps, reader.drops]
        rows.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return "\n".join(rows)


def with_table(page: str) -> str:
    head, begun, rest = page.partition(BEGIN)
    _, ended, tail = rest.partition(END)
    if not begun or not ended:
        raise SystemExit(f"{PAGE} has no {BEGIN!r} … {END!r} block")
    return f"{head}{BEGIN}\n{render()}\n{END}{tail}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="scripts/document_formats.py")
    parser.add_argument("--check", action="store_true", help="exit 1 when the table is stale")
    args = parser.parse_args(argv)
    current = PAGE.read_text(encoding="utf-8")
    page = with_table(current)
    if args.check:
        if page != current:
            print(f"{PAGE} is stale: run `python scripts/document_formats.py`.", file=sys.stderr)
        return int(page != current)
    PAGE.write_text(page, encoding="utf-8")
    print(f"wrote {PAGE}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
