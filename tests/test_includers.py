"""Which specs include a file (checker.frontend.includers): what the language server checks an
include file through, and what `rulewright affected` and `check --includers-in` give a hook or
a CI job when an include file changes."""

import os
from pathlib import Path

import pytest

from checker.frontend.includers import affected, include_paths, includers

SECRET = "TOP-SECRET-LINE-7f3a"


@pytest.fixture
def repo(tmp_path, monkeypatch):
    """spec/a.rw includes parts/mid.rwi, which includes common.rwi; spec/b.rw includes common.rwi
    itself; spec/c.rw includes nothing. The working folder is tmp."""
    (tmp_path / "spec" / "parts").mkdir(parents=True)
    (tmp_path / "spec" / "a.rw").write_text('players 2\ninclude "parts/mid.rwi"\n')
    (tmp_path / "spec" / "parts" / "mid.rwi").write_text('include "../common.rwi"\n')
    (tmp_path / "spec" / "b.rw").write_text('players 2\nformat f {\n  include "common.rwi"\n}\n')
    (tmp_path / "spec" / "c.rw").write_text("players 2\n")
    (tmp_path / "spec" / "common.rwi").write_text("var x: 0..1 = 0\n")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def test_the_includers_of_a_file_are_the_specs_including_it_directly_or_through_other_includes(repo):
    assert includers(["spec/common.rwi"], ".") == ["spec/a.rw", "spec/b.rw"]
    assert includers(["spec/parts/mid.rwi"], ".") == ["spec/a.rw"]
    assert includers(["spec/c.rw"], ".") == []


def test_a_spec_whose_include_file_no_longer_parses_still_counts_as_including_it(repo):
    (repo / "spec" / "parts" / "mid.rwi").write_text('var ;; broken\ninclude "../common.rwi"\n')
    (repo / "spec" / "b.rw").write_text('players 2\nformat f { include "common.rwi" ')  # unfinished
    assert includers(["spec/common.rwi"], ".") == ["spec/a.rw", "spec/b.rw"]


def test_a_deleted_include_file_still_names_the_specs_that_include_it(repo):
    (repo / "spec" / "common.rwi").unlink()
    assert includers(["spec/common.rwi"], ".") == ["spec/a.rw", "spec/b.rw"]


def test_an_include_in_a_comment_or_a_quote_is_no_include():
    text = ('spec "include" formalizes "x.rwi"\n# include "commented.rwi"\n'
            'include "a \\"quoted\\" name.rwi" # and a comment\ninclude\n  "next-line.rwi"\n')
    assert include_paths(text) == ['a "quoted" name.rwi', "next-line.rwi"]


def test_an_include_cycle_ends_the_search(repo):
    (repo / "spec" / "common.rwi").write_text('include "parts/mid.rwi"\n')
    assert includers(["spec/common.rwi"], ".") == ["spec/a.rw", "spec/b.rw"]


def test_the_search_reads_nothing_outside_the_tree(repo, monkeypatch):
    # spec/d.rw includes out/x.rwi through a symlink to a folder outside the tree, and that file
    # includes the tree's common.rwi: following it would read a file outside the tree
    (repo / "outside").mkdir()
    (repo / "outside" / "x.rwi").write_text(f'include "../spec/common.rwi"\n{SECRET}\n')
    (repo / "spec" / "out").symlink_to(repo / "outside", target_is_directory=True)
    (repo / "spec" / "d.rw").write_text('players 2\ninclude "out/x.rwi"\n')
    (repo / "spec" / "e.rw").symlink_to(repo / "outside" / "x.rwi")  # a spec that is a link outside
    real_open = os.open
    opened: list[str] = []

    def spy(path, *args, **kwargs):
        opened.append(os.path.realpath(path))
        return real_open(path, *args, **kwargs)
    monkeypatch.setattr(os, "open", spy)
    assert includers(["spec/common.rwi"], "spec") == ["spec/a.rw", "spec/b.rw"]
    assert opened and not [p for p in opened if not p.startswith(str(repo.resolve() / "spec") + "/")]


def test_a_change_affects_the_specs_named_and_the_specs_including_the_files_named(repo):
    assert affected(["spec/common.rwi"], ".") == ["spec/a.rw", "spec/b.rw"]
    assert affected(["spec/c.rw", "spec/common.rwi"], ".") == ["spec/c.rw", "spec/a.rw", "spec/b.rw"]
    assert affected(["spec/a.rw", "spec/common.rwi"], ".") == ["spec/a.rw", "spec/b.rw"]  # each once
    assert affected(["spec", "spec/common.rwi"], ".") == ["spec"]  # the folder checks them all
    assert affected(["spec/gone.rw"], ".") == []  # a deleted spec is nothing to check
    assert affected([str(Path("spec/parts/mid.rwi"))], "spec/parts") == []  # no spec in that tree
