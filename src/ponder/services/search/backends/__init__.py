"""The search backends, one module each; importing this package registers every one.

A module here is a backend: it registers itself with
:func:`ponder.services.search.registry.register` (see that module for what it says), and
nothing else names it. The package root (:mod:`ponder`) has this package imported before
the first look-up of the names.
"""

from __future__ import annotations

import importlib
import os

for _file in sorted(os.listdir(__path__[0])):  # not pkgutil: `ponder --help` passes here
    if _file.endswith(".py") and not _file.startswith("_"):
        importlib.import_module(f"{__name__}.{_file.removesuffix('.py')}")
