"""A spec as it was in a git revision (`REV:path`, as `git show` spells it), copied into a
private temporary folder so the front end reads it like any file.

Only the spec and the files it includes are copied, each read from the revision's tree with
git (`ls-tree` for the listing, `cat-file` for the content), never from the working tree. The
copy's folder stands for the spec's folder in the revision and is the include root, so an
include stays confined to that revision's tree: a path leaving the folder, a symlink or a
submodule entry is simply not copied, and the front end reports the include as missing. The
size limits of `includes` apply while copying too.
"""
from __future__ import annotations

import os
import posixpath
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from .includes import MAX_FILE_BYTES, MAX_SPEC_BYTES, MAX_SPEC_FILES

_INCLUDE = re.compile(rb'\binclude\s+"((?:[^"\\\n]|\\["\\])*)"')


class RevisionError(Exception):
    """A revision or path git cannot give; the message says which."""


@dataclass
class Materialized:
    path: str  # the copy of the spec
    root: str  # its include root: the copy of the spec's folder
    shown: str  # how to name the spec to the user: REV:path
    tmp: str  # the temporary folder (removed by `close`)
    prefix: str  # the copy's folder, as it appears in messages, and what to show instead

    def close(self) -> None:
        shutil.rmtree(self.tmp, ignore_errors=True)


def split(arg: str) -> tuple[str, str] | None:
    """(revision, path) if `arg` names a git revision's file (`main:spec/x.rw`), None for a
    file of the working tree (one that exists, or that has no colon)."""
    if os.path.exists(arg) or ":" not in arg:
        return None
    rev, path = arg.split(":", 1)
    return rev, path


def _git(args: list[str], cwd: str) -> bytes:
    try:
        done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, timeout=60,
                              env={**os.environ, "GIT_TERMINAL_PROMPT": "0", "GIT_PAGER": "cat"})
    except FileNotFoundError:
        raise RevisionError("git is not installed") from None
    except subprocess.TimeoutExpired:
        raise RevisionError("git did not answer within 60 s") from None
    if done.returncode != 0:
        msg = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise RevisionError(msg[-1] if msg else f"git {args[0]} failed")
    return done.stdout


def materialize(rev: str, path: str, cwd: str = ".") -> Materialized:
    if not rev or rev.startswith("-") or "\x00" in rev or "\x00" in path:
        raise RevisionError(f"not a revision: {rev!r}")
    top = _git(["rev-parse", "--show-toplevel"], cwd).decode("utf-8", "replace").strip()
    # git reads `REV:./x` and `REV:../x` relative to the current folder, `REV:x` to the top
    if path.startswith(("./", "../")):
        prefix = _git(["rev-parse", "--show-prefix"], cwd).decode("utf-8", "replace").strip()
        path = posixpath.normpath(posixpath.join(prefix, path))
    path = posixpath.normpath(path)
    if path.startswith("../") or path == ".." or posixpath.isabs(path):
        raise RevisionError(f"{path} is outside the repository")
    folder = posixpath.dirname(path)
    listing = _git(["ls-tree", "-r", "-z", "-l", "--full-tree", "--end-of-options", rev, "--", folder or "."], top)
    blobs: dict[str, tuple[str, int]] = {}  # path -> (object, size), regular files only
    for entry in listing.split(b"\x00"):
        if not entry:
            continue
        meta, name = entry.split(b"\t", 1)
        mode, kind, obj, size = meta.split()
        if kind == b"blob" and mode in (b"100644", b"100755"):
            blobs[name.decode("utf-8", "surrogateescape")] = (obj.decode(), int(size))
    if path not in blobs:
        raise RevisionError(f"{rev}:{path} is not a file in that revision")
    tmp = tempfile.mkdtemp(prefix="rulewright-rev-")  # mode 0700: private
    tree = os.path.join(tmp, "tree")
    os.mkdir(tree, 0o700)
    m = Materialized(os.path.join(tree, posixpath.relpath(path, folder or ".")), tree, f"{rev}:{path}", tmp,
                     tree + os.sep)
    try:
        _copy(rev, path, folder, blobs, tree, top)
    except BaseException:
        m.close()
        raise
    return m


def _copy(rev: str, path: str, folder: str, blobs: dict, tree: str, top: str) -> None:
    todo, done, total = [path], set(), 0
    while todo:
        p = todo.pop()
        if p in done or p not in blobs:
            continue  # missing, a symlink or outside the folder: the front end reports the include
        done.add(p)
        obj, size = blobs[p]
        if size > MAX_FILE_BYTES or len(done) > MAX_SPEC_FILES or total + size > MAX_SPEC_BYTES:
            continue  # the front end's own limits then name the include that is too much
        data = _git(["cat-file", "blob", obj], top)
        total += len(data)
        rel = posixpath.relpath(p, folder or ".")
        dest = Path(tree, *rel.split("/"))
        dest.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        dest.write_bytes(data)
        here = posixpath.dirname(p)
        for inc in _INCLUDE.findall(data):
            name = inc.decode("utf-8", "replace").replace('\\"', '"').replace("\\\\", "\\")
            target = posixpath.normpath(posixpath.join(here, name))
            inside = folder == "" and not target.startswith("../") or target.startswith(folder + "/")
            if inside and not posixpath.isabs(name):
                todo.append(target)
