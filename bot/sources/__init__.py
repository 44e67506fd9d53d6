"""Where lines come from: files, stdin, folders, a wrapped command.

The only stage that reads files. ``lines`` splits bytes into numbered lines (``Line``,
``LongLine``); ``source`` is what every source offers the main loop (``Source``, ``Item``,
``Truncated``); ``follow`` follows a growing file, ``stream`` reads stdin or a pipe on a thread,
``command`` runs the agent and reads its stdout; ``files`` reads a whole file (preview)."""
