"""Build: the pure core (formats, session, blocks) is compiled to C with mypyc when it can be.

The core is typed Python that mypyc turns into C extension modules, about twice as fast (see
``python -m benchmarks.replay``). Compiling is optional: with ``SLACKTAIL_COMPILE=0``, or when
there is no C compiler, or when mypyc fails, slacktail is installed as pure Python, which
behaves the same, only slower (``slacktail --version`` says which). An editable install puts the
compiled modules beside their sources: install again after changing the core (the README's test
command does), or the tests stop with the modules that are out of date.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from setuptools import setup
from setuptools.command.build_ext import build_ext
from setuptools.errors import BaseError, CCompilerError

ROOT = Path(__file__).resolve().parent
# What mypyc compiles (bot/build.py names the same packages to tell a stale build).
CORE = [
    "bot/records.py", "bot/result_records.py", "bot/values.py", "bot/lenient.py",
    "bot/formats", "bot/session", "blocks",
]  # fmt: skip


def core_sources() -> list[str]:
    files: list[str] = []
    for entry in CORE:
        path = ROOT / entry
        found = sorted(path.glob("*.py")) if path.is_dir() else [path]
        files.extend(str(file.relative_to(ROOT)) for file in found if file.name != "__init__.py")
    return files


def remove_compiled_core() -> None:
    """Compiled modules left in the tree by an earlier editable install: with them beside the
    sources, Python would import them instead of the sources."""
    for entry in CORE:
        path = ROOT / entry
        folder = path if path.is_dir() else path.parent
        pattern = "*.so" if path.is_dir() else f"{path.stem}.*.so"
        for compiled in folder.glob(pattern):
            compiled.unlink()
    for shared in ROOT.glob("*__mypyc*.so"):
        shared.unlink()


class OptionalBuildExt(build_ext):
    """Compiling the core is a speed-up, not a requirement: a failure installs pure Python."""

    def run(self) -> None:
        try:
            super().run()
        except (BaseError, CCompilerError, OSError) as error:  # no compiler, or it failed
            self._give_up(error)

    def _give_up(self, error: Exception) -> None:
        print(f"slacktail: the core was not compiled ({error}); installing pure Python",
              file=sys.stderr)
        self.extensions = []
        remove_compiled_core()


def extensions() -> list[object]:
    if os.environ.get("SLACKTAIL_COMPILE", "1") == "0":
        remove_compiled_core()
        return []
    try:
        from mypyc.build import mypycify
    except ImportError:
        return []
    try:
        return list(mypycify(core_sources(), opt_level="3"))
    except (SystemExit, Exception) as error:
        print(f"slacktail: mypyc could not compile the core ({error}); installing pure Python",
              file=sys.stderr)
        return []


setup(ext_modules=extensions(), cmdclass={"build_ext": OptionalBuildExt})
