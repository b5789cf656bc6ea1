"""Runs a peer benchmark script under the Python that has the peers (onnxruntime, PyTorch) installed.

    import peer_env; peer_env.use_peer_python(["numpy", "onnxruntime"])   # before importing the peers

The interpreter is `$LIFT_PEER_PYTHON` when set, else the repository's own environment
`.venv/bin/python`, found from this file's place (not from the current directory). `Tools/setup-python.sh`
makes that environment from `Tools/requirements.txt`, the one pinned list for Tools/ and Benchmarks/
(the peers at the versions RESULTS.md was measured with; torch is a large download). The script
re-runs itself under that interpreter unless it already runs there; the re-run is marked in
`$LIFT_PEER_ENV_ACTIVE`, so it happens once. A missing environment or package stops the script with
what to run, instead of installing anything.
"""
from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
VENV = REPO / ".venv"
SETUP = "Tools/setup-python.sh"


def _check(packages: list[str]) -> None:
    """Stops with a message naming the packages the running interpreter cannot import."""
    missing = [name for name in packages if importlib.util.find_spec(name) is None]
    if missing:
        sys.exit(f"peer_env: {sys.executable} lacks {', '.join(missing)}: run {SETUP} "
                 "(or point $LIFT_PEER_PYTHON at an interpreter with Tools/requirements.txt installed)")


def use_peer_python(packages: list[str]) -> None:
    """Re-executes the running script under `$LIFT_PEER_PYTHON`, or else under the repository's
    `.venv` (made by `Tools/setup-python.sh`), once; then checks that `packages` (import names, e.g.
    "onnxruntime", "torch") import there."""
    if os.environ.get("LIFT_PEER_ENV_ACTIVE") == "1":
        _check(packages)
        return
    chosen = os.environ.get("LIFT_PEER_PYTHON")
    if not chosen:
        if Path(sys.prefix).resolve() == VENV.resolve():
            _check(packages)
            return
        python = VENV / "bin" / "python"
        if not python.exists():
            sys.exit(f"peer_env: no Python environment at {VENV}: run {SETUP} (or set $LIFT_PEER_PYTHON)")
        chosen = str(python)
    os.environ["LIFT_PEER_ENV_ACTIVE"] = "1"
    os.execvp(chosen, [chosen, *sys.argv])
