"""The one shape of every follower event: a frozen dataclass whose ``name`` is its line's
``event`` field (see ``bot.events``)."""

from __future__ import annotations

import dataclasses
import inspect
from typing import Any, ClassVar

RESERVED = frozenset({"at", "event"})  # every line's own fields


class Event:
    """One notable event; see the subclasses (each a frozen dataclass)."""

    __slots__ = ()
    __dataclass_fields__: ClassVar[dict[str, Any]]  # each subclass is a dataclass
    name: ClassVar[str] = ""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        taken = RESERVED & set(inspect.get_annotations(cls))
        if taken:
            raise TypeError(f"{cls.__name__}: {', '.join(sorted(taken))} is every line's own")

    def fields(self) -> dict[str, Any]:
        """The line's fields besides ``at`` and ``event``, in their order."""
        return {field.name: getattr(self, field.name) for field in dataclasses.fields(self)}
