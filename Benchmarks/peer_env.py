"""Runs a peer benchmark script under the Python that has the peers (onnxruntime, PyTorch) installed.

    import peer_env; peer_env.use_peer_python(["numpy", "onnxruntime"])   # before importing the peers

If `$LIFT_PEER_PYTHON` is set (e.g. `/work/venv/bin/python`, which this project's own runs use), the
script re-runs itself under that interpreter. Otherwise it re-runs under `Benchmarks/.venv`, which it
creates first if missing (`python3 -m venv`, then `pip install` of the packages the script names, at
the versions pinned in `Benchmarks/requirements-peer.txt`, those RESULTS.md was measured with; torch
is a large download). A later script that needs more packages installs the missing ones.
`Benchmarks/.venv` is ignored by git. The re-run is marked in `$LIFT_PEER_ENV_ACTIVE`, so it happens once.
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

BENCHMARKS = Path(__file__).resolve().parent
VENV = BENCHMARKS / ".venv"
REQUIREMENTS = BENCHMARKS / "requirements-peer.txt"


def _pinned(packages: list[str]) -> list[str]:
    """`name==version` for each package, from the requirements file."""
    pins = {}
    for line in REQUIREMENTS.read_text().splitlines():
        line = line.split("#")[0].strip()
        if "==" in line:
            pins[line.split("==")[0].strip().lower()] = line
    missing = [name for name in packages if name.lower() not in pins]
    if missing:
        sys.exit(f"peer_env: {', '.join(missing)} not pinned in {REQUIREMENTS}")
    return [pins[name.lower()] for name in packages]


def _venv_python(packages: list[str]) -> Path:
    """The virtualenv's interpreter, made when missing, with `packages` installed at their pins."""
    python = VENV / "bin" / "python"
    if not python.exists():
        print(f"peer_env: creating {VENV}", file=sys.stderr)
        subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
    check = subprocess.run([str(python), "-c", "import importlib.util, sys; sys.exit(any(importlib.util.find_spec(m) is None "
                            f"for m in {packages!r}))"])
    if check.returncode != 0:
        print(f"peer_env: installing {', '.join(_pinned(packages))} into {VENV}", file=sys.stderr)
        subprocess.run([str(python), "-m", "pip", "install", "--quiet", *_pinned(packages)], check=True)
    return python


def use_peer_python(packages: list[str]) -> None:
    """Re-executes the running script under `$LIFT_PEER_PYTHON`, or else under `Benchmarks/.venv` with
    `packages` (import names that are also the PyPI names, e.g. "onnxruntime", "torch") installed. Once."""
    if os.environ.get("LIFT_PEER_ENV_ACTIVE") == "1":
        return
    chosen = os.environ.get("LIFT_PEER_PYTHON")
    target = chosen if chosen else str(_venv_python(packages))
    os.environ["LIFT_PEER_ENV_ACTIVE"] = "1"
    os.execvp(target, [target, *sys.argv])
