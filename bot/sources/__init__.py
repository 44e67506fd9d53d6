"""Where lines come from: files, stdin, folders, a wrapped command.

The only stage that reads files."""
