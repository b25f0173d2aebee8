"""An installed rulewright (not an editable checkout) finds its grammar from any directory."""
import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_the_wheel_carries_the_grammar_and_runs_from_elsewhere(tmp_path):
    build = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
                            "-w", str(tmp_path / "dist"), str(ROOT)], capture_output=True, text=True)
    assert build.returncode == 0, build.stderr
    (wheel,) = (tmp_path / "dist").glob("rulewright-*.whl")
    assert "checker/grammar/rulewright.lark" in zipfile.ZipFile(wheel).namelist()
    target = tmp_path / "site"
    inst = subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target", str(target), str(wheel)],
                          capture_output=True, text=True)
    assert inst.returncode == 0, inst.stderr
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    spec = ROOT / "tests" / "specs" / "ring_clean.rw"
    env = {"PYTHONPATH": str(target), "PATH": "/usr/bin:/bin"}
    code = ("import sys; sys.path = [p for p in sys.path if p not in ('', '%s')]; import checker; "
            "assert checker.__file__.startswith('%s'), checker.__file__; "
            "from checker.cli import main; raise SystemExit(main(['check', '%s']))") % (ROOT, target, spec)
    run = subprocess.run([sys.executable, "-c", code], cwd=elsewhere, capture_output=True, text=True,
                         env={**env, "PYTHONNOUSERSITE": "1"})
    assert run.returncode == 0, run.stdout + run.stderr
    assert "result: clean" in run.stdout
