"""A training run's folder (`out`): the console log `train.log`, one JSON line per validation in
`log.jsonl`, and the checkpoints, each written whole (to a temporary name, then renamed) so that a
run stopped at any moment leaves no half-written file."""
from __future__ import annotations

import json
import os
import time
from pathlib import Path

import torch


class RunFiles:
    """The files of the run writing into `out` (made if missing; logs are appended to)."""

    def __init__(self, out):
        self.out = Path(out)
        self.out.mkdir(parents=True, exist_ok=True)
        self._log = open(self.out / "train.log", "a", buffering=1)

    def log(self, message: str) -> None:
        """One line, UTC-stamped, to the console and to train.log."""
        line = f"{time.strftime('%Y-%m-%d %H:%M:%S', time.gmtime())} {message}"
        print(line, flush=True)
        self._log.write(line + "\n")

    def record(self, entry: dict) -> None:
        """One validation's figures as a line of log.jsonl."""
        with open(self.out / "log.jsonl", "a") as f:
            f.write(json.dumps(entry) + "\n")

    def save(self, checkpoint: dict, name: str) -> Path:
        """`checkpoint` as out/name (a path below out, e.g. "snapshots/step-100.pt"), atomically."""
        path = self.out / name
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        torch.save(checkpoint, tmp)
        os.replace(tmp, path)
        return path
