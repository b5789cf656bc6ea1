"""The by-eye review of the over-split check's real photos (`real-review.tsv`, its header says how it
was made): which photos whose ground truth is one region actually show several objects that touch.

With it eval_instances.py reports, next to the over-split on all single-region photos (the issue's
check as measured before the review, unchanged), two figures a region-level ground truth cannot give:
  over-split on the reviewed single objects   the photos the review left as one object
  several objects split                       the photos marked `several N`: the share split into
                                              >= 2 subjects each mostly on the region, and the share
                                              with exactly N such subjects
Photos marked `unclear` are in neither.
"""
from __future__ import annotations

from pathlib import Path

REVIEW = Path(__file__).resolve().parent / "real-review.tsv"
# The same review of the DUTS-TE extra photos that predict.py --tune and fit_split_check.py use.
EXTRA_REVIEW = Path(__file__).resolve().parent / "extra-review.tsv"


def load(path: Path = REVIEW) -> dict[tuple[str, str], int | None]:
    """{(set, key): N for `several N`, None for `unclear`}."""
    out: dict[tuple[str, str], int | None] = {}
    for number, line in enumerate(path.read_text().splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        set_name, key, verdict = line.split("\t")
        if (set_name, key) in out:
            raise ValueError(f"{path}:{number}: {set_name}/{key} is listed twice")
        if verdict == "unclear":
            out[(set_name, key)] = None
        elif verdict.startswith("several ") and verdict[8:].isdigit() and int(verdict[8:]) >= 2:
            out[(set_name, key)] = int(verdict[8:])
        else:
            raise ValueError(f"{path}:{number}: verdict {verdict!r} is neither `several N` (N >= 2) nor `unclear`")
    return out
