"""The search backends, one folder each; importing this package registers every one.

A folder here is a backend — its client, its settings and its registration together
(docs/extending.md): its ``__init__`` registers it with
:func:`ponder.services.search.registry.register` (see that module for what it says), and
nothing else names it. The package root (:mod:`ponder`) has this package imported before
the first look-up of the names.
"""

from __future__ import annotations

import importlib
import os

for _name in sorted(os.listdir(__path__[0])):  # not pkgutil: `ponder --help` passes here
    if not _name.startswith(("_", ".")) and os.path.isfile(
        os.path.join(__path__[0], _name, "__init__.py")
    ):
        importlib.import_module(f"{__name__}.{_name}")
