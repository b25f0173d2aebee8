"""Reading spec files whose content, and whose includes, may be hostile.

A spec and everything it includes must lie inside one folder tree, its root: the folder of a
file named on the command line, the folder given when a folder is walked, or `--include-root`.
Symlinks are followed, but only to files inside the root, and they are resolved one at a time
(`resolve_within`): each step is judged by where it leads before the file system is asked
anything about that place, so a committed symlink to `/` cannot tell whether some path exists
on the machine ("does not exist" and "leads outside" would differ). Only regular files are
read, at most `MAX_FILE_BYTES` each, and all the checks are made with `os.lstat` before
anything is opened, so a named pipe never blocks and `/dev/zero` is never read. Because
nothing outside the root is ever read, no diagnostic can echo a line of it. One spec with all
its includes may read at most `MAX_SPEC_FILES` files and `MAX_SPEC_BYTES` bytes: a file that
includes another twice, which includes another twice, ... would otherwise multiply.
"""
from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from .diagnostics import Code, Diagnostic, SpecError, remember_source
from .syntax import Span

MAX_FILE_BYTES = 1 << 20   # 1 MiB; the largest bundled spec is about 60 KiB
MAX_SPEC_BYTES = 4 << 20   # one spec with all its includes
MAX_SPEC_FILES = 100

_HINT = "includes name a file by a path relative to the including file, inside the folder tree being checked"


class SpecTree:
    """The root one spec's files must lie in, and how much reading them has used so far.

    The root is a folder, or a file that is then alone in its tree and may include nothing (an
    editor's document outside every workspace folder: its neighbours are nobody's to read).
    `buffers` maps real paths to texts read instead of the file's (an editor's unsaved include
    file); the path must still be one the tree admits.
    """

    def __init__(self, root: str | Path, buffers: dict[str, str] | None = None):
        self.root = Path(root)
        self.real_root = os.path.realpath(self.root)
        self.alone = not os.path.isdir(self.root)
        self.buffers = buffers or {}
        self.files = 0
        self.bytes = 0

    def include_path(self, including: Path, rel: str, at: Span) -> Path:
        """The file an `include` names; absolute paths are refused outright (they are never portable)."""
        if "\x00" in rel:
            raise _refuse(Code.FILE_REFUSED, f"include {rel!r} contains a NUL character", at, _HINT)
        if os.path.isabs(rel):
            raise _refuse(Code.FILE_REFUSED, f"include {rel!r} is an absolute path", at, _HINT)
        return including.parent / rel

    def read(self, path: Path, shown: str, include: tuple[str, Span] | None = None,
             stack: tuple[str, ...] = ()) -> tuple[str, str]:
        """(text, real path) of a spec file, or a SpecError located at the include that names it.

        `include` is (the path as written, the include's span), None for a top-level file;
        `stack` holds the real paths of the files including this one, to refuse cycles.
        """
        what = f"include {include[0]!r}" if include else shown
        at = include[1] if include else Span(shown, 0, 0, 0, 0)
        st, real = self._locate(path, what, at, include is not None)
        if real in stack:
            raise _refuse(Code.INCLUDE, f"{what} includes itself", at, "a file may not include itself, directly or through other files")
        if real in self.buffers:
            text = self.buffers[real]
            self.charge(len(text.encode("utf-8", "surrogatepass")), what, at)
            return text, real
        data = read_regular(real, st, what, at)
        self._charge(len(data), what, at)  # what was read: a file may report size 0 yet hold bytes
        return decode(data, shown), real

    def _locate(self, path: Path, what: str, at: Span, included: bool) -> tuple[os.stat_result, str]:
        """Resolve `path` inside the root and lstat it, without opening it; refuse anything but a
        regular file in the root."""
        missing = Code.INCLUDE if included else Code.UNREADABLE
        if not _inside(os.path.abspath(path), os.path.abspath(self.root)):
            # refused before any system call, so "does not exist" never tells what exists outside
            raise self._outside(what, at, included, "")
        try:
            real, st = resolve_within(str(path), str(self.root), self.real_root)
        except Outside as exc:
            raise self._outside(what, at, included, " through a symlink" if exc.links else "")
        except OSError as exc:
            if exc.errno == errno.ENOENT:
                raise _refuse(missing, f"{what} does not exist", at, _HINT if included else "check the path")
            if exc.errno == errno.ELOOP:
                raise _refuse(missing, f"{what} is a symlink loop", at, "a symlink in the path leads back to itself")
            raise _refuse(Code.UNREADABLE, f"{what} cannot be read: {os.strerror(exc.errno) if exc.errno else exc.__class__.__name__}",
                          at, "check the path and its permissions")
        if not stat.S_ISREG(st.st_mode):
            raise _refuse(Code.FILE_REFUSED, f"{what} is not a regular file ({kind_of(st.st_mode)})", at, "only regular files are read as specs")
        if st.st_size > MAX_FILE_BYTES:
            raise _refuse(Code.FILE_REFUSED, f"{what} is larger than {mib(MAX_FILE_BYTES)}, the limit for one spec file", at,
                          "split it into several files")
        return st, real

    def _outside(self, what: str, at: Span, included: bool, how: str) -> SpecError:
        if self.alone:
            return _refuse(Code.FILE_REFUSED, f"{what} is not read: the spec's tree is the file {str(self.root)!r} alone", at,
                           "includes are read only inside the folder tree a spec is checked in; in an editor, "
                           "open a folder that holds the spec as a workspace folder")
        return _refuse(Code.FILE_REFUSED, f"{what} leads outside the folder tree {str(self.root)!r}{how}", at,
                       (_HINT if included else "a spec file must lie inside the folder named or walked")
                       + "; --include-root DIR names a wider tree")

    def charge(self, size: int, what: str, at: Span) -> None:
        """Count a spec text read from elsewhere (an editor's buffer) against the limits."""
        if size > MAX_FILE_BYTES:
            raise _refuse(Code.FILE_REFUSED, f"{what} is larger than {mib(MAX_FILE_BYTES)}, the limit for one spec file", at,
                          "split it into several files")
        self._charge(size, what, at)

    def _charge(self, size: int, what: str, at: Span) -> None:
        self.files += 1
        self.bytes += size
        if self.files > MAX_SPEC_FILES or self.bytes > MAX_SPEC_BYTES:
            raise _refuse(Code.FILE_REFUSED, f"{what} goes past the limit of {MAX_SPEC_FILES} files and {mib(MAX_SPEC_BYTES)} "
                          f"for one spec with its includes", at, "include each file once, from one place")


MAX_LINKS = 40  # symlinks followed in one path, as Linux allows; beyond that it is a loop (ELOOP)


class Outside(Exception):
    """`resolve_within` met a step that leads outside the root; `links` symlinks were followed before."""

    def __init__(self, links: int):
        super().__init__(f"leads outside the root after {links} symlink(s)")
        self.links = links


def resolve_within(path: str, root: str, real_root: str) -> tuple[str, os.stat_result]:
    """(the real path of `path`, its lstat), the symlinks on the way resolved one at a time as
    the kernel would, or `Outside` as soon as a step leads out of `real_root`.

    Only places inside `real_root` or above it (its own ancestors, which exist anyway) are ever
    looked at with `lstat`/`readlink`; any other place is refused by its name alone, so the answer
    for `link-to-root/etc/passwd` and `link-to-root/etc/nothing` is the same. `..` after a
    resolved folder is its physical parent, as for the kernel. A path that starts with the root
    as written (`specs/x.rw` with root `specs`) starts there: the way to the root is the user's
    own choice (it may well run through a symlink of theirs). Missing files raise
    FileNotFoundError, more than MAX_LINKS symlinks OSError(ELOOP), a file used as a folder
    NotADirectoryError.
    """
    parts = [c for c in path.split("/") if c not in ("", ".")]
    start = [c for c in root.split("/") if c not in ("", ".")]
    if os.path.isabs(path) == os.path.isabs(root) and ".." not in start and parts[:len(start)] == start:
        current, parts = real_root, parts[len(start):]
    else:
        current = "/" if os.path.isabs(path) else os.getcwd()  # getcwd() is already a real path
    pending = parts[::-1]  # the next component is at the end
    links = 0
    st: os.stat_result | None = None
    while pending:
        name = pending.pop()
        if st is not None and not stat.S_ISDIR(st.st_mode):
            raise NotADirectoryError(errno.ENOTDIR, os.strerror(errno.ENOTDIR), current)
        if name == "..":
            current, st = os.path.dirname(current), None
            continue
        step = os.path.join(current, name)
        if not (_inside(step, real_root) or _inside(real_root, step)):
            raise Outside(links)  # judged by its name: nothing about it is asked of the file system
        st = os.lstat(step)
        if stat.S_ISLNK(st.st_mode):
            links += 1
            if links > MAX_LINKS:
                raise OSError(errno.ELOOP, os.strerror(errno.ELOOP), path)
            target = os.readlink(step)
            if os.path.isabs(target):
                current = "/"
            pending.extend(c for c in reversed(target.split("/")) if c not in ("", "."))
            st = None
        else:
            current = step
    if not _inside(current, real_root):
        raise Outside(links)  # a folder above the root (a symlink to `/`), never a spec file
    return current, st if st is not None else os.lstat(current)


_OPEN_REGULAR = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)


def read_regular(path: str, st: os.stat_result, what: str, at: Span, *, limit: int = MAX_FILE_BYTES,
                 follow: bool = False, too_large: str = "the limit for one spec file",
                 hint: str = "split it into several files") -> bytes:
    """Read a file already checked to be regular (`st`), re-checked on the open descriptor in
    case it was swapped, at most `limit` bytes. Also read_bytes' reader (checker.files)."""
    # O_NONBLOCK: should a pipe appear here after the stat, opening it must not wait for a writer;
    # O_NOFOLLOW (unless `follow`): `path` has no symlinks left, so one appearing now is refused.
    flags = _OPEN_REGULAR | (0 if follow else getattr(os, "O_NOFOLLOW", 0))
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        raise _refuse(Code.UNREADABLE, f"{what} cannot be read: {os.strerror(exc.errno) if exc.errno else 'error'}", at,
                      "check the file's permissions")
    try:
        with os.fdopen(fd, "rb") as fh:
            now = os.fstat(fh.fileno())
            if not stat.S_ISREG(now.st_mode) or (now.st_dev, now.st_ino) != (st.st_dev, st.st_ino):
                raise _refuse(Code.FILE_REFUSED, f"{what} changed while it was being read", at, "run again on a folder nobody is changing")
            data = fh.read(limit + 1)
    except OSError as exc:
        raise _refuse(Code.UNREADABLE, f"{what} cannot be read: {os.strerror(exc.errno) if exc.errno else 'error'}", at,
                      "check the file and the disk")
    if len(data) > limit:  # it grew, or it is a file (like those in /proc) whose size says 0
        raise _refuse(Code.FILE_REFUSED, f"{what} is larger than {mib(limit)}, {too_large}", at, hint)
    return data


def decode(data: bytes, shown: str) -> str:
    """The text of a spec file, or an error at the line and column of the first byte that is not UTF-8."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        bad = exc.start
        line = data.count(b"\n", 0, bad) + 1
        col = len(data[data.rfind(b"\n", 0, bad) + 1:bad].decode("utf-8")) + 1  # valid up to `bad`
        remember_source(shown, data.decode("utf-8", "replace"))  # the file is in the tree: show the line
        raise _refuse(Code.NOT_UTF8, f"the file is not valid UTF-8: byte 0x{data[bad]:02x} cannot start or continue a character",
                      Span(shown, line, col, line, col + 1), "save the file as UTF-8 text")


def _inside(path: str, root: str) -> bool:
    try:
        return os.path.commonpath([path, root]) == root
    except ValueError:  # different drives, or one relative
        return False


def kind_of(mode: int) -> str:
    """What a file that is not regular is, for a message."""
    for test, name in ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a named pipe"), (stat.S_ISCHR, "a character device"),
                       (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket")):
        if test(mode):
            return name
    return "a special file"


def mib(n: int) -> str:
    return f"{n >> 20} MiB"


def _refuse(code: str, message: str, at: Span, hint: str) -> SpecError:
    return SpecError(Diagnostic(code, message, at, hint))
