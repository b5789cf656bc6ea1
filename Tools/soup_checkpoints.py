"""Averages the weights of several checkpoints of one variant ("model soup"): parameters and
BatchNorm statistics, element-wise; integer buffers from the first. A source may be given more
than once to weigh it more. Writes a best.pt-style file (weights under "ema") that
export_subject.py, eval_subject.py --checkpoint and train_subject.py --grow-from all read.

  /work/venv/bin/python Tools/soup_checkpoints.py OUT.pt A/best.pt A/best.pt B/last.pt:ema
(each source is PATH or PATH:KEY, KEY one of the file's state dicts: ema (default) or model)
"""
from __future__ import annotations

import sys

import torch


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    out, sources = sys.argv[1], sys.argv[2:]
    dicts = []
    for source in sources:
        path, _, key = source.partition(":")
        dicts.append(torch.load(path, map_location="cpu", weights_only=False)[key or "ema"])
    if any(d.keys() != dicts[0].keys() for d in dicts):
        sys.exit("the checkpoints differ in their tensors (different variants?)")
    soup = {}
    for name, first in dicts[0].items():
        if first.is_floating_point():
            soup[name] = (sum(d[name].float() for d in dicts) / len(dicts)).to(first.dtype)
        else:
            soup[name] = first
    torch.save({"ema": soup, "which": "soup", "sources": sources}, out)
    print(f"{out}: mean of {len(sources)} ({', '.join(sources)})")


if __name__ == "__main__":
    main()
