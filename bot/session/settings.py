"""How a session is shown and judged: its verbosity, when a call is orphaned and a quiet session
idle, how many tool calls a group holds, and the controls its messages show."""

from __future__ import annotations

from dataclasses import dataclass

from bot.session.significance import Verbosity


@dataclass(frozen=True, slots=True)
class SessionSettings:
    verbosity: Verbosity = Verbosity.NORMAL
    orphan_after_s: float = 600.0  # a call with no result after this long with no activity
    tools_per_group: int = 12
    idle_after_s: float = 600.0  # a running session whose log is quiet this long is idle
    stop_button: bool = False  # its root has a Stop button (``run`` with the app: bot.app)
    controls: bool = False  # the app can receive clicks: messages show their controls

    def __reduce__(
        self,
    ) -> tuple[type[SessionSettings], tuple[Verbosity, float, int, float, bool, bool]]:
        # Pickled by its fields: compiled (mypyc), a frozen class cannot be unpickled by setattr.
        return (SessionSettings, (self.verbosity, self.orphan_after_s, self.tools_per_group,
                                  self.idle_after_s, self.stop_button, self.controls))  # fmt: skip
