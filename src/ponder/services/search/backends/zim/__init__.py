"""search=zim: Kiwix ZIM archives (``zim``), offline encyclopedias and references, searched
through each archive's full-text index, else its titles (:mod:`.client`, :mod:`.archive`).
No network: auto (the default) and hybrid search them too whenever they are set up."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from ponder.services.search.registry import Building, Patch, SearchPlugin, Verdict, register
from ponder.settings.search_backends import SearchBackendInfo

if TYPE_CHECKING:
    from pathlib import Path

    from ponder.services.search.backends.zim.settings import ZimSettings
    from ponder.services.search.base import SearchBackend
    from ponder.settings.configuration import Configuration
    from ponder.settings.environment import Environment

NO_ARCHIVES = "search=zim needs an archive — pass --zim FILE.zim (or set PONDER_ZIM)."
NO_LIBZIM = "Kiwix ZIM archives need libzim, an optional package: pip install 'ponder[zim]'."


def _libzim_missing() -> bool:
    import importlib.util

    return importlib.util.find_spec("libzim") is None


def _own(config: Configuration) -> ZimSettings:
    """This backend's settings (its folder's settings.py), as the configuration holds them."""
    from ponder.services.search.backends.zim.settings import ZimSettings

    return ZimSettings.of(config)


def _present(config: Configuration) -> tuple[list[str], list[str]]:
    """The archives set up that exist, and those that do not."""
    paths = [os.path.expanduser(path) for path in _own(config).zim]
    return [p for p in paths if os.path.isfile(p)], [p for p in paths if not os.path.isfile(p)]


def present(config: Configuration) -> bool:
    """Whether an archive set up exists: offline, only then is there one to search."""
    return bool(_present(config)[0])


def make(built: Building) -> SearchBackend:
    """The archives that exist; SearchError without libzim or without one that exists
    (auto and hybrid then search the others, and say why)."""
    from ponder.core.errors import SearchError
    from ponder.services.search.backends.zim.client import ZimSearch

    if _libzim_missing():
        raise SearchError(NO_LIBZIM)
    found, missing = _present(built.config)
    if not found:
        raise SearchError(f"ZIM archive(s) missing: {', '.join(missing)} — check --zim.")
    for path in missing:
        built.warn(f"ZIM archive {path} does not exist; ignoring it.")
    # ponder's own data folder holds what people upload to `ponder ui`, which the
    # operator's kiwix-serve does not serve: an archive there is cited by its path.
    uploads = str(built.environment.data_folder.resolve())
    return ZimSearch(found, _own(built.config).kiwix_url, built.warn, unlinked=uploads)


def ready(config: Configuration, environment: Environment) -> None:
    """Archives without libzim, or search=zim with no archive that exists: say so before
    the run starts."""
    from ponder.core.errors import SearchError

    if _own(config).zim and _libzim_missing():
        raise SearchError(NO_LIBZIM)
    if "zim" not in config.searches or _present(config)[0]:
        return
    missing = _own(config).zim
    raise SearchError(
        f"ZIM archive(s) missing: {', '.join(missing)} — check --zim." if missing else NO_ARCHIVES
    )


def check(config: Configuration) -> Verdict:
    """Each archive: its title, its articles, and how it is searched."""
    from ponder.services.search.backends.zim.archive import describe
    from ponder.services.text.sandbox import ParseFailed, run

    found, missing = _present(config)
    if not found and not missing:
        return Verdict(False, NO_ARCHIVES)
    lines = [f"{path}: missing — check --zim" for path in missing]
    for path in found:
        try:
            about = run(describe, path, deadline=30.0)
        except ParseFailed as exc:
            lines.append(f"{path}: cannot be read ({exc})")
            continue
        index = "full-text index" if about.fulltext else "titles only (no full-text index)"
        lines.append(f"{path}: “{about.title}”, {about.articles} articles, {index}")
    ok = not any(line.endswith("check --zim") or "cannot be read" in line for line in lines)
    return Verdict(ok, "ZIM archives: " + "; ".join(lines))


def contract(mode: str, folder: Path, patch: Patch) -> SearchBackend:
    """Over an archive written in ``folder``, searched in this process (so the fixture's
    faults reach it): libzim failing or slow at its boundary, as a worker reports it."""
    import time
    from typing import Any

    from ponder.services.search.backends.zim import archive
    from ponder.services.search.backends.zim.client import ZimSearch
    from ponder.services.text.sandbox import ParseFailed

    count = 0 if mode == "empty" else 8
    from ponder.services.search.backends.zim.writing import write_archive

    texts = [f"Contract tides number {i}." for i in range(count)] or ["Nothing here."]
    pages = [
        (f"a{n}", f"Article {n}", f"<html><body><p>{t}</p></body></html>")
        for n, t in enumerate(texts)
    ]
    path = write_archive(folder / "contract.zim", pages)  # libzim needs a page: one of none
    if mode == "failing":

        def broken(*_: Any) -> Any:
            raise RuntimeError("zim file is corrupt")

        patch.setattr(archive, "search", broken)
    if mode == "slow":
        real = archive.search

        def sluggish(*args: Any) -> Any:
            time.sleep(0.5)
            return real(*args)

        patch.setattr(archive, "search", sluggish)

    def here(function: Any, *args: Any, deadline: float) -> Any:
        try:
            return function(*args)
        except RuntimeError as exc:  # as a worker's failure comes back
            raise ParseFailed(str(exc)) from None

    return ZimSearch([str(path)], None, warn=print, run=here)


register(
    SearchPlugin(
        SearchBackendInfo(
            name="zim",
            note="Kiwix ZIM archives",
            summary="Kiwix ZIM archives on this machine (offline Wikipedia, Stack Exchange, "
            "DevDocs…): full-text index, else titles",
            settings=("zim", "kiwix_url"),
            order=35,
            offline=True,
            public=False,
            hybrid=True,
            needs="zim",
            fields=f"{__name__}.settings:ZimSettings",
        ),
        make=make,
        ready=ready,
        check=check,
        contract=contract,
        present=present,
    )
)
