from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(autouse=True)
def _repo_root_cwd(monkeypatch):
    # reports print paths as given; run from the repository root so they are stable
    monkeypatch.chdir(ROOT)
