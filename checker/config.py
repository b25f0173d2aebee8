"""The `[tool.rulewright]` table of the nearest pyproject.toml: defaults for `check` and `baseline`.

The nearest pyproject.toml (the working folder's, or a folder's above it) may belong to the tree
being checked: a pull request can add one. So it is read as a spec file is (checker.files):
only a regular file of at most `MAX_CONFIG_BYTES`, not through a symlink leading out of its
folder; and a path it gives (`baseline`) is relative to that folder and must stay in its tree,
judged by where it leads before anything outside is looked at. Whether that file exists is not
asked here: `rulewright baseline -o FILE` may be about to write it; `check` reads it as a
regular file of at most `MAX_BASELINE_BYTES` (checker.baseline).

What such a table can still do is choose what a run reports (`ignore`, `select`, `fail-on`,
`baseline`). A CI job that must not take that from the change it checks sets
RULEWRIGHT_NO_CONFIG=1 (no pyproject.toml is read) and passes its options on the command line
(docs/ci/github-workflow.yml).
"""
from __future__ import annotations

import os
import re
import stat
import tomllib
from pathlib import Path

from .files import MAX_BASELINE_BYTES, MAX_CONFIG_BYTES, read_bytes
from .frontend.diagnostics import Code, Diagnostic, SpecError, remember_source
from .frontend.includes import Outside, kind_of, resolve_within
from .frontend.syntax import Span

PATH_KEYS = ("baseline",)  # settings that name a file: relative to the pyproject.toml, inside its tree


class ConfigError(Exception):
    """A setting the command line would refuse too (an unknown key, a bad value)."""


def _repository_root(d: Path) -> bool:
    """Whether `d` is the root of a checkout (git, Mercurial): where the search for a
    configuration stops, as black and ruff stop."""
    return any(os.path.lexists(d / marker) for marker in (".git", ".hg"))


def find_config(start: Path | None = None) -> tuple[Path | None, dict]:
    """The nearest pyproject.toml with a [tool.rulewright] table, and that table, its paths made
    relative to the working folder; (None, {}) when there is none or RULEWRIGHT_NO_CONFIG is set."""
    if os.environ.get("RULEWRIGHT_NO_CONFIG"):
        return None, {}
    here = (start or Path.cwd()).resolve()
    for d in (here, *here.parents):
        path = d / "pyproject.toml"
        try:
            os.lstat(path)
        except OSError:
            if _repository_root(d):  # the search stops at the checkout's root: a folder above it
                break  # (a shared home, /tmp) is not the project's, and anyone may write there
            continue
        data = read_bytes(str(path), MAX_CONFIG_BYTES, f"the configuration {path}",
                          "a pyproject.toml is read only as a regular file of at most 1 MiB in its own folder",
                          tree=str(d))
        try:
            text = data.decode("utf-8")
            doc = tomllib.loads(text)
        except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
            raise ConfigError(f"{path}: cannot be read as TOML: {exc}")
        table = doc.get("tool", {}).get("rulewright")
        if table is None:
            if _repository_root(d):
                break
            continue
        if not isinstance(table, dict):
            raise ConfigError(f"{path}: [tool.rulewright] must be a table")
        remember_source(str(path), text)  # a regular file of the user's tree: its lines may be shown
        for key in PATH_KEYS:
            if isinstance(table.get(key), str):
                table = {**table, key: config_path(table[key], path, text, key)}
        return path, table
    return None, {}


def config_path(value: str, pyproject: Path, text: str, key: str) -> str:
    """The file a path setting names, relative to the pyproject.toml's folder, or a SpecError at
    the setting's line: it must stay in that folder's tree, and be a regular file of at most
    MAX_BASELINE_BYTES if it exists."""
    folder = str(pyproject.parent)
    at = _setting_span(str(pyproject), text, key)
    hint = (f"a path in {pyproject.name} is relative to its folder and stays inside it; "
            f"give {key} on the command line for a file elsewhere")
    what = f"{key} {value!r}"
    if "\x00" in value:
        raise SpecError(Diagnostic(Code.FILE_REFUSED, f"{what} contains a NUL character", at, hint))
    path = os.path.join(folder, value)  # an absolute value stays as it is
    if os.path.commonpath([os.path.abspath(path), os.path.abspath(folder)]) != os.path.abspath(folder):
        raise SpecError(Diagnostic(Code.FILE_REFUSED, f"{what} leads outside the folder tree of {pyproject}", at, hint))
    try:
        _, st = resolve_within(path, folder, os.path.realpath(folder))
    except Outside as exc:
        raise SpecError(Diagnostic(Code.FILE_REFUSED, f"{what} leads outside the folder tree of {pyproject}"
                                   + (" through a symlink" if exc.links else ""), at, hint))
    except OSError:
        return _shown(path)  # missing (for now), or unreadable: the command that reads it says which
    if not stat.S_ISREG(st.st_mode):
        raise SpecError(Diagnostic(Code.FILE_REFUSED, f"{what} is not a regular file ({kind_of(st.st_mode)})", at, hint))
    if st.st_size > MAX_BASELINE_BYTES:
        raise SpecError(Diagnostic(Code.FILE_REFUSED, f"{what} is larger than {MAX_BASELINE_BYTES >> 20} MiB, the limit for it",
                                   at, hint))
    return _shown(path)


def _shown(path: str) -> str:
    """`path` as reports show it: relative to the working folder when it lies inside it."""
    here = os.getcwd()
    return os.path.relpath(path, here) if os.path.commonpath([os.path.abspath(path), here]) == here else path


def _setting_span(file: str, text: str, key: str) -> Span:
    """Where `key = ...` stands in the [tool.rulewright] table (line 1 if it cannot be found)."""
    lines = text.split("\n")
    in_table = False
    for n, line in enumerate(lines, 1):
        head = re.match(r"\s*\[([^\]]*)\]", line)
        if head:
            in_table = head.group(1).strip().replace('"', "").replace("'", "") == "tool.rulewright"
            continue
        m = re.match(rf"\s*[\"']?{re.escape(key)}[\"']?\s*=", line)
        if in_table and m:
            col = len(line) - len(line.lstrip()) + 1
            return Span(file, n, col, n, len(line.rstrip()) + 1)
    return Span(file, 1, 1, 1, 2)
