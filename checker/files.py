"""Files rulewright reads or writes beside the specs: pyproject.toml, baseline files, ITF traces.

They may come from a pull request as much as the specs do (a committed pyproject.toml, a
baseline it names, a symlink planted where a CI job writes its traces), so they get the specs'
rules (checker.frontend.includes):

- `read_bytes` reads only a regular file, judged by `os.stat` before it is opened (a named pipe
  would block, `/dev/zero` never ends, and opening some devices does something), re-checked on
  the open descriptor, at most a given number of bytes. A path with a `tree` (a path taken from
  a configuration file) must stay in that folder tree, its symlinks resolved one at a time as
  an include's are, so nothing outside is asked about.
- `OutputFolder` creates files without following a symlink: not the entry a file is written to,
  not the folder itself, and, for a relative folder, none on the way from the working folder.
  A symlink or special file in the way is refused (E009), never written through or replaced:
  it is not something a run wrote.

Every problem is a SpecError with a Diagnostic (file, line and column where a configuration
line names the file; a hint), so the command line reports it and exits 2.
"""
from __future__ import annotations

import errno
import os
import stat

from .frontend.diagnostics import Code, Diagnostic, SpecError
from .frontend.includes import Outside, mib, kind_of, read_regular, resolve_within
from .frontend.syntax import Span

MAX_CONFIG_BYTES = 1 << 20     # pyproject.toml: a few KiB in practice
MAX_BASELINE_BYTES = 16 << 20  # one line per finding: about 100,000 findings

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


def _why(exc: OSError) -> str:
    return os.strerror(exc.errno) if exc.errno else exc.__class__.__name__


def read_bytes(path: str, limit: int, what: str, hint: str, at: Span | None = None, tree: str | None = None) -> bytes:
    """The content of the regular file at `path`, at most `limit` bytes, or a SpecError at `at`
    (default: the file itself). With `tree`, `path` must lie in that folder tree."""
    at = at or Span(path, 0, 0, 0, 0)
    follow = tree is None  # the user's own path: their symlinks are theirs to follow
    try:
        if tree is None:
            st = os.stat(path)
        else:
            if os.path.commonpath([os.path.abspath(path), os.path.abspath(tree)]) != os.path.abspath(tree):
                raise Outside(0)
            path, st = resolve_within(path, tree, os.path.realpath(tree))
            # `path` is real now: read_regular refuses a symlink appearing there
    except Outside as exc:
        raise _refuse(Code.FILE_REFUSED, f"{what} leads outside the folder tree {tree!r}{' through a symlink' if exc.links else ''}",
                      at, hint)
    except OSError as exc:
        if exc.errno == errno.ENOENT:
            raise _refuse(Code.UNREADABLE, f"{what} does not exist", at, hint)
        raise _refuse(Code.UNREADABLE, f"{what} cannot be read: {_why(exc)}", at, hint)
    if not stat.S_ISREG(st.st_mode):
        raise _refuse(Code.FILE_REFUSED, f"{what} is not a regular file ({kind_of(st.st_mode)})", at, hint)
    if st.st_size > limit:
        raise _refuse(Code.FILE_REFUSED, f"{what} is larger than {mib(limit)}, the limit for it", at, hint)
    return read_regular(path, st, what, at, limit=limit, follow=follow,
                        too_large="the limit for it", hint=hint)


_DIR = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | _NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
_WRITE = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | _NOFOLLOW | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
_HINT_OUT = "write into a folder of your own (a new one, or one only rulewright writes to); remove the entry if it is yours"


class OutputFolder:
    """A folder to create files in, opened (and made, where missing) without following a symlink:
    an absolute path is taken as given up to its last folder, a relative one from the working
    folder. Use as a context manager."""

    def __init__(self, folder: str):
        self.folder = folder
        absolute = os.path.isabs(folder)
        here = os.getcwd()
        if absolute and os.path.commonpath([os.path.abspath(folder), here]) == here:
            folder, absolute = os.path.relpath(os.path.abspath(folder), here), False  # in the checkout, likely
        parts = [p for p in folder.split("/") if p not in ("", ".")]
        start = "/" if absolute else "."
        if absolute and parts:  # outside the working folder the folders above the last are the user's, as written
            start, parts = os.path.join("/", *parts[:-1]), parts[-1:]
        try:
            fd = os.open(start, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0))
        except OSError as exc:
            raise _refuse(Code.OUTPUT_REFUSED, f"cannot open the folder {start}: {_why(exc)}", Span(start, 0, 0, 0, 0), _HINT_OUT)
        shown = "" if start == "." else start.rstrip("/") + "/"
        for name in parts:
            shown += name
            try:
                try:
                    os.mkdir(name, 0o777, dir_fd=fd)
                except FileExistsError:
                    pass
                nxt = os.open(name, _DIR, dir_fd=fd)
            except OSError as exc:
                if exc.errno == errno.ENOTDIR and _is_link(name, fd):
                    exc = OSError(errno.ELOOP, os.strerror(errno.ELOOP))  # O_DIRECTORY spoke first
                os.close(fd)
                raise self._problem(shown, exc, "folder")
            os.close(fd)
            fd = nxt
            shown += "/"
        self.fd = fd

    def write(self, name: str, text: str) -> None:
        """Create or replace the regular file `name` (no folders in it) with `text`."""
        assert "/" not in name and name not in ("", ".", "..")
        shown = os.path.join(self.folder, name)
        try:
            st = os.stat(name, dir_fd=self.fd, follow_symlinks=False)
        except FileNotFoundError:
            st = None
        except OSError as exc:
            raise self._problem(shown, exc, "file")
        if st is not None and not stat.S_ISREG(st.st_mode):  # refused unopened: opening a device can act
            raise _refuse(Code.OUTPUT_REFUSED, f"{shown} is in the way: it is {_entry(st.st_mode)}, not a file a run wrote; "
                          "it is neither followed nor replaced",
                          Span(shown, 0, 0, 0, 0), _HINT_OUT)
        try:
            fd = os.open(name, _WRITE, 0o644, dir_fd=self.fd)
        except OSError as exc:
            raise self._problem(shown, exc, "file")
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
                raise _refuse(Code.OUTPUT_REFUSED, f"{shown} changed while it was being written", Span(shown, 0, 0, 0, 0), _HINT_OUT)
            fh.write(text)

    @staticmethod
    def _problem(shown: str, exc: OSError, what: str) -> SpecError:
        if exc.errno in (errno.ELOOP, errno.EMLINK):  # O_NOFOLLOW met a symlink (EMLINK on FreeBSD)
            return _refuse(Code.OUTPUT_REFUSED, f"{shown} is a symlink: output is written only into real folders and files, "
                           f"never through a link", Span(shown, 0, 0, 0, 0), _HINT_OUT)
        if exc.errno == errno.ENOTDIR:
            return _refuse(Code.OUTPUT_REFUSED, f"{shown} is not a folder", Span(shown, 0, 0, 0, 0), _HINT_OUT)
        return _refuse(Code.OUTPUT_REFUSED, f"cannot write the {what} {shown}: {_why(exc)}", Span(shown, 0, 0, 0, 0), _HINT_OUT)

    def close(self) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None

    def __enter__(self) -> "OutputFolder":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _is_link(name: str, dir_fd: int) -> bool:
    try:
        return stat.S_ISLNK(os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_mode)
    except OSError:
        return False


def _entry(mode: int) -> str:
    return "a symlink" if stat.S_ISLNK(mode) else kind_of(mode)


def _refuse(code: str, message: str, at: Span, hint: str) -> SpecError:
    return SpecError(Diagnostic(code, message, at, hint))
