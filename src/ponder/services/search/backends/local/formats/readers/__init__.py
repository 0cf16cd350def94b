"""The file-format readers, one module each; importing this package registers every one.

A module here is a reader: it registers itself with
:func:`ponder.services.search.backends.local.formats.registry.register` (see that module for what
it says), and nothing else names it.
"""

from __future__ import annotations

import importlib
import os

for _file in sorted(os.listdir(__path__[0])):
    if _file.endswith(".py") and not _file.startswith("_"):
        importlib.import_module(f"{__name__}.{_file.removesuffix('.py')}")
