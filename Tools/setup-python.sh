#!/usr/bin/env bash
# Makes the project's one Python environment, `.venv/` at the repository root (ignored by git),
# installs the pinned `Tools/requirements.txt` into it (everything Tools/ and the Benchmarks/ peers
# import), then the `liftpy` package from Tools/ itself, editable (Tools/pyproject.toml), so that an
# edit under Tools/ takes effect without reinstalling. Run it again after the pins change; it reuses
# the environment and installs what differs. Then run any script as a module from anywhere:
# `.venv/bin/python -m liftpy.<job>.<script> ...` (`liftpy.training.train_subject`,
# `liftpy.conversion.export_subject`, ...); `lift-bench` and `Benchmarks/peer_env.py` find
# `.venv/bin/python` by themselves.
#
#   Tools/setup-python.sh            # python3 from PATH (the pins are for Python 3.11)
#   PYTHON=python3.11 Tools/setup-python.sh
#   Tools/setup-python.sh dask distributed pyyaml     # only these pins (no torch), e.g. for liftpy.distributed
#
# torch is a large download (several GB with its CUDA libraries). Nothing here is needed to build
# Lift or to run `swift test`.
set -euo pipefail
cd "$(dirname "$0")/.."

python="${PYTHON:-python3}"
if ! command -v "$python" > /dev/null; then
  echo "setup-python: $python not found (set PYTHON to a Python 3.11 interpreter)" >&2
  exit 1
fi
version="$("$python" -c 'import sys; print("%d.%d" % sys.version_info[:2])')"
if [ "$version" != "3.11" ]; then
  echo "setup-python: warning: $python is Python $version; the pins in Tools/requirements.txt are for 3.11" >&2
fi

if [ ! -x .venv/bin/python ]; then
  echo "setup-python: creating .venv with $python ($version)"
  if ! "$python" -m venv .venv; then
    echo "setup-python: '$python -m venv' failed (on Debian/Ubuntu: apt-get install python3-venv)" >&2
    exit 1
  fi
fi
if [ "$#" -gt 0 ]; then
  pins=("$(grep -E '^setuptools==' Tools/requirements.txt)")  # the editable install's build backend
  for name in "$@"; do
    pin="$(grep -i -E "^${name}==" Tools/requirements.txt || true)"
    [ -n "$pin" ] || { echo "setup-python: $name is not pinned in Tools/requirements.txt" >&2; exit 1; }
    pins+=("$pin")
  done
  echo "setup-python: installing ${pins[*]} into .venv"
  .venv/bin/python -m pip install --disable-pip-version-check "${pins[@]}"
else
  echo "setup-python: installing Tools/requirements.txt into .venv"
  .venv/bin/python -m pip install --disable-pip-version-check -r Tools/requirements.txt
fi
echo "setup-python: installing liftpy from Tools/ (editable) into .venv"
.venv/bin/python -m pip install --disable-pip-version-check --quiet --no-deps --no-build-isolation --editable Tools
echo "setup-python: done; use .venv/bin/python -m liftpy.<job>.<script>"
