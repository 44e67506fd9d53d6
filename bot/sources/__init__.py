"""Where lines come from: files, stdin, folders, a wrapped command.

The only stage that reads files. ``lines`` splits bytes into numbered lines (``Line``,
``LongLine``); ``source`` is what every source offers the main loop (``Source``, ``Item``,
``Truncated``, ``Rotated``, ``Rewritten``); ``follow`` follows a file like ``tail -F``
(``opening`` and ``position``: where it was left, resumed after a restart); ``document``
follows a JSON document rewritten in place, read whole again at each change; ``folder`` follows
every session file of a folder (``patterns``: which files, found in one walk) or glob;
``watch`` wakes followers on file-system events; ``spool`` copies stdin to a file so a restart
resumes it; ``stream`` reads a pipe on a thread, ``command`` runs the agent and reads its
stdout; ``files`` reads a whole file (preview)."""
