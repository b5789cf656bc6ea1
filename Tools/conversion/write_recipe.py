"""Writes the subject model's recipe (`lift.recipe`, Sources/LiftModel/GRAPH-FORMAT.md, "Recipe") into
the headers of its Lift model files, the tensors untouched: the quality levels into the mask file, the
instance grouping into the instance heads' own file (or into the mask file when its graph holds the
heads itself).

  .venv/bin/python -m liftpy.conversion.write_recipe Weights/subject.safetensors
  .venv/bin/python -m liftpy.conversion.write_recipe Weights/subject.safetensors --recipe OTHER.json

The numbers come from `subject_recipe.json` beside this script, the one place they are kept:
export_subject.py writes the same into every export, and Tools/instances/group.py reads its grouping.
Only the header's `__metadata__` changes. The header is written as the exporter writes it (JSON with
sorted keys and no spaces, padded with spaces to a multiple of 8 bytes; `liftpy/export_torch.py`), and
re-encoding the old header must give its bytes back before anything is written, so nothing else can
move; the tensor bytes are copied as they are. Prints each file's new sha256 for Weights/SHA256SUMS.
Standard library only.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import struct
from pathlib import Path

RECIPE_FILE = Path(__file__).resolve().with_name("subject_recipe.json")
METADATA_KEY = "lift.recipe"
HEADS_FILE_KEY = "lift.instance-heads"


def load_recipe(path=RECIPE_FILE) -> dict:
    """The recipe document (`format`, `levels`, `grouping`)."""
    with open(path, encoding="utf-8") as f:
        recipe = json.load(f)
    if recipe.get("format") != "lift.recipe/1":
        raise SystemExit(f"{path}: format {recipe.get('format')!r} is not lift.recipe/1")
    return recipe


def _json(value) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def mask_recipe(recipe: dict, with_grouping: bool) -> str:
    """The mask file's `lift.recipe`: the levels, and the grouping when the file holds the heads."""
    keys = ("format", "levels", "grouping") if with_grouping else ("format", "levels")
    return _json({k: recipe[k] for k in keys})


def heads_recipe(recipe: dict) -> str:
    """The instance heads file's `lift.recipe`: the grouping of their cues."""
    return _json({k: recipe[k] for k in ("format", "grouping")})


def read_header(path) -> tuple[dict, int]:
    """(the header object, the byte offset of the tensor data)."""
    with open(path, "rb") as f:
        (length,) = struct.unpack("<Q", f.read(8))
        return json.loads(f.read(length)), 8 + length


def encode_header(header: dict) -> bytes:
    text = _json(header).encode("utf-8")
    return text + b" " * (-len(text) % 8)


def set_metadata(path, entries: dict[str, str]):
    """Sets `entries` in the `__metadata__` of the model file at `path`, everything else as it was."""
    path = Path(path)
    header, data_start = read_header(path)
    with open(path, "rb") as f:
        old = f.read(data_start)[8:]
    if encode_header(header) != old:
        raise SystemExit(f"{path}: its header is not in the exporter's form; refusing to rewrite it")
    header["__metadata__"] = {**header["__metadata__"], **entries}
    text = encode_header(header)
    tmp = path.with_name(path.name + ".tmp")
    with open(path, "rb") as src, open(tmp, "wb") as out:
        out.write(struct.pack("<Q", len(text)))
        out.write(text)
        src.seek(data_start)
        while block := src.read(1 << 20):
            out.write(block)
    os.replace(tmp, path)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("mask", help="the mask model file (its heads file, when it names one, is written too)")
    ap.add_argument("--recipe", default=str(RECIPE_FILE))
    a = ap.parse_args()
    recipe = load_recipe(a.recipe)
    mask = Path(a.mask)
    header, _ = read_header(mask)
    metadata = header["__metadata__"]
    heads = metadata.get(HEADS_FILE_KEY)
    inline = "centre" in json.loads(metadata["lift.graph"])["outputs"]
    written = {mask: mask_recipe(recipe, with_grouping=inline)}
    if heads:
        written[mask.with_name(heads)] = heads_recipe(recipe)
    for path, text in written.items():
        set_metadata(path, {METADATA_KEY: text})
        print(f"{hashlib.sha256(path.read_bytes()).hexdigest()}  {path.name}")


if __name__ == "__main__":
    main()
