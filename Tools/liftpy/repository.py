"""Where the repository is, and which commit it is at, for the provenance scripts record."""
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def git_commit():
    """The checkout's short commit hash, or "unknown" outside a git checkout."""
    try:
        return subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"],
                              capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
