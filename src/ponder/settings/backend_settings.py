"""The settings a search backend keeps in its own folder.

A backend's fields are a pydantic model of its folder (``settings.py``), named by its
registration (``SearchBackendInfo.fields``); :class:`~ponder.settings.configuration.Configuration`
is built with each as a base, so ``PONDER_<FIELD>``, the flags, Studio's form and
docs/configuration.md list them beside the others. The backend's code reads them through
its own model — ``ZimSettings.of(config)`` — which a type checker follows, where
``config.zim`` on the Configuration it could not.
"""

from __future__ import annotations

from typing import Self

from pydantic import BaseModel


class BackendSettings(BaseModel):
    """A search backend's own Configuration fields (a base of Configuration)."""

    @classmethod
    def of(cls, config: BaseModel) -> Self:
        """``config`` seen as this backend's settings: it is one, as Configuration has
        every backend's settings among its bases."""
        if not isinstance(config, cls):
            raise TypeError(f"{type(config).__name__} does not hold {cls.__name__}'s fields")
        return config
