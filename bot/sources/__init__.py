"""Where lines come from: files, stdin, folders, a wrapped command.

The only stage that reads files. ``lines`` splits bytes into numbered lines (``Line``,
``LongLine``); ``source`` is what every source offers the main loop (``Source``, ``Item``,
``Truncated``, ``Rotated``); ``follow`` follows a file like ``tail -F`` (``opening`` and
``position``: where it was left, resumed after a restart); ``folder`` follows every session file
of a folder or glob; ``watch`` wakes followers on file-system events; ``spool`` copies stdin to
a file so a restart resumes it; ``stream`` reads a pipe on a thread, ``command`` runs the agent
and reads its stdout; ``files`` reads a whole file (preview)."""
