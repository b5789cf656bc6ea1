"""Averages the weights of several checkpoints of one variant ("model soup"): parameters and
BatchNorm statistics, element-wise; integer buffers, and tensors equal in every source (a frozen
foreground network), from the first, so their bytes (signed zeros included) stay the first's. A source may be given more than once to weigh it
more. Writes a best.pt-style file (weights under "ema"; "sources" and each one's training
"source_args" and "source_commits", which export_subject.py names in the provenance) that
export_subject.py, eval_subject.py --checkpoint and the trainer's `grow_from` all read.

  .venv/bin/python -m liftpy.training.soup_checkpoints OUT.pt A/best.pt A/best.pt B/last.pt:ema
(each source is PATH or PATH:KEY, KEY one of the file's state dicts: ema (default) or model)

Exported weight files (.safetensors, BatchNorm folded into the convolutions) average in that folded
form, read back with export_subject.load_exported_weights (identity BatchNorms): all sources must
then be exported files (export a checkpoint with export_subject.py --fixtures '' --no-eval first).

Instance heads (keys `instance.*`) may be held by some sources only: each head tensor is
the mean over the sources that hold it, so a soup of a file without heads and one with them keeps
the latter's heads on the averaged network.
"""
from __future__ import annotations

import sys
from pathlib import Path

import torch

from liftpy.model_files import load_exported
from liftpy.repository import git_commit


def folded_state(path):
    """The state dict of a SubjectNet holding an exported (BN-folded) file."""
    return load_exported(path).state_dict()


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    out, sources = sys.argv[1], sys.argv[2:]
    exported = [source.endswith(".safetensors") for source in sources]
    if any(exported) and not all(exported):
        sys.exit("mix of exported files and checkpoints: export the checkpoints first (see the docstring)")
    dicts, args, commits = [], [], []
    for source in sources:
        if source.endswith(".safetensors"):
            dicts.append(folded_state(source))
            args.append({})
            commits.append("unknown")
            continue
        path, _, key = source.partition(":")
        checkpoint = torch.load(path, map_location="cpu", weights_only=False)
        dicts.append(checkpoint[key or "ema"])
        args.append(checkpoint.get("args", {}))
        commits.append(checkpoint.get("commit", "unknown"))
    def network(d):
        return {name for name in d if not name.startswith("instance.")}
    if any(network(d) != network(dicts[0]) for d in dicts):
        sys.exit("the checkpoints differ in their tensors (different variants?)")
    soup = {}
    for name in dict.fromkeys(name for d in dicts for name in d):
        holders = [d[name] for d in dicts if name in d]
        first = holders[0]
        if first.is_floating_point() and not all(torch.equal(first, t) for t in holders[1:]):
            soup[name] = (sum(t.float() for t in holders) / len(holders)).to(first.dtype)
        else:
            soup[name] = first  # integers, and tensors equal in all sources (a frozen network): the first's bytes
    Path(out).parent.mkdir(parents=True, exist_ok=True)
    torch.save({"ema": soup, "which": "soup", "sources": sources, "source_args": args,
                "source_commits": commits, "commit": git_commit()}, out)
    print(f"{out}: mean of {len(sources)} ({', '.join(sources)})")


if __name__ == "__main__":
    main()
