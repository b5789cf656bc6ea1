"""Runs a subject-model checkpoint over the instance evaluation set and the real single-object photos,
turns its maps into instances with group.py, writes label PNGs and scores them with
eval_instances.py; optionally the foreground figures through Tools/evaluation/eval_subject.py, and a
grid over group.py's thresholds on the tuning set.

  .venv/bin/python -m liftpy.instances.predict --checkpoint RUN/last.pt                 # eval set + real photos, scored
  .venv/bin/python -m liftpy.instances.predict --checkpoint RUN/last.pt --tune          # thresholds, on .work/tune only
  .venv/bin/python -m liftpy.instances.predict --checkpoint RUN/last.pt --fg            # + MAE / max F / S against the shipped file
  .venv/bin/python -m liftpy.instances.predict --checkpoint RUN/last.pt --regroup --centre-threshold 0.2   # no network

The network sees what Lift's runtime gives it: the photo stretched to --size (duts_data.stretch), and
with --mirror (default, as `balanced`) the mirror image too; the maps are averaged, the mirror's
offsets flipped back with dx negated. Two label maps come from the same maps:
  heads  group.py (centre peaks, offsets, boundary check; its thresholds are the flags below)
  cc     connected components of the same foreground (fg >= 0.5 at photo size, specks < 0.05 %
         dropped): the model's own "today", so the two differ only by the grouping. (Lift's shipped
         pipeline also refines the mask; eval_instances.py --baselines scores that.)
A checkpoint or .safetensors file without instance heads gets `cc` only.
The grouping flags default to what Lift ships (group.SHIPPED), the split check's weights included,
which were fitted for the shipped heads: for other heads give `--split-check none` (the grid without
the check) or the weights fit_split_check.py prints for them.

Files, under --out (default Tools/instances/.work/pred/NAME, NAME from the checkpoint's folder):
  raw-SET.npz                   the network's maps (fg at --size, centre / offset / boundary and any
                                affinity at /4, float16) for the set (eval or tune), real-duts and
                                real-ecssd; --regroup reuses them (group.py reads no affinity yet)
  heads/set/NNNN.png, heads/real/{duts,ecssd}/KEY.png, the same under cc/: 8-bit or 16-bit label PNGs
  heads.json, cc.json           eval_instances.py's figures (it prints the tables)
  tune.json                     --tune: every setting's figures on the tuning set
  fg.json                       --fg: eval_subject.py's figures
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import math
import subprocess
import sys
import time
from pathlib import Path

import cv2
import numpy as np
import torch

from liftpy.duts_data import load_split, stretch
from liftpy.instances import real_review
from liftpy.instances.eval_instances import read_set, real_photos
from liftpy.instances.group import SHIPPED, GroupParams, components, group, ordered
from liftpy.instances.metrics import object_segments, oversplit, score_image, summarise
from liftpy.instances.sources import is_single_object
from liftpy.model_files import load_model_file
from liftpy.subject_model import InstanceHeads

HERE = Path(__file__).resolve().parent
TOOLS = HERE.parent
REPO = TOOLS.parent

WORK = HERE / ".work"
REAL_SETS = ("duts", "ecssd")
# --tune's grid (the other GroupParams fields stay as given)
TUNE_GRID = {"centre_threshold": (0.1, 0.12, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.5), "boundary_threshold": (None, 0.2, 0.3),
             "min_piece": (0.005, 0.01), "min_support": (0.0, 0.005, 0.01, 0.02)}
# --tune's grid when --split-check gives the split check's weights (fit_split_check.py): its
# probability, with the centre thresholds it lets through and the support test (none when the
# check weighs the support itself: five weights)
SPLIT_CHECK_GRID = {"centre_threshold": (0.1, 0.12, 0.15, 0.2, 0.25, 0.3, 0.35), "boundary_threshold": (None,),
                    "min_piece": (0.01,), "min_support": (0.0, 0.01),
                    "split_probability": (0.5, 0.6, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95)}
TUNE_PHOTOS_SEED = 3901  # which DUTS-TE extra photos --tune-photos draws
TUNE_PHOTOS = 400  # how many (--tune-photos' default)


def load_model(path, which):
    """(PyTorch SubjectNet in eval mode, label) from a .pt checkpoint or an exported .safetensors."""
    model, label = load_model_file(path, which)
    return model.eval(), label


def infer(model, photos, size=256, mirror=True, batch=16):
    """The network's maps for RGB uint8 photos: dict of float16 arrays, fg (N, size, size)
    probability, and with instance heads centre (N, hc, wc) and boundary probabilities and offset
    (N, 2, hc, wc) in model pixels, and with an affinity branch its probabilities (N, C, hc, wc),
    channel c for the cell pair (i, j), (i + dy, j + dx) of InstanceHeads.AFFINITY_OFFSETS[c]."""
    heads = model.instance is not None
    out = {k: [] for k in (("fg", "centre", "offset", "boundary", "affinity") if heads else ("fg",))}

    def run(xt):
        if not heads:
            return {"fg": torch.sigmoid(model(xt))[:, 0]}
        fg, inst = model.forward_instances(xt)
        r = {"fg": torch.sigmoid(fg)[:, 0], "centre": torch.sigmoid(inst["centre"])[:, 0], "offset": inst["offset"]}
        if "boundary" in inst:
            r["boundary"] = torch.sigmoid(inst["boundary"])[:, 0]
        if "affinity" in inst:
            r["affinity"] = torch.sigmoid(inst["affinity"])
        return r

    def mirrored_back(k, v):
        """A mirrored pass's map `v` in the photo's frame: flipped, offsets' dx negated, and a
        horizontal pair (j', j' + dx) of the mirror, which is (j - dx, j) of the photo, moved to
        cell j - dx."""
        back = v.flip(-1)
        if k == "offset":
            back = back * torch.tensor([1.0, -1.0]).view(1, 2, 1, 1)
        if k == "affinity":
            back = back.clone()
            for c, (dy, dx) in enumerate(InstanceHeads.AFFINITY_OFFSETS):
                if dx and dy:
                    raise ValueError("a diagonal affinity pair has no mirrored twin channel")
                if dx:
                    back[:, c, :, :-dx] = back[:, c, :, dx:].clone()
        return back

    with torch.no_grad():
        for i in range(0, len(photos), batch):
            x = np.stack([stretch(p, size) for p in photos[i:i + batch]])
            xt = torch.from_numpy(x).permute(0, 3, 1, 2).contiguous(memory_format=torch.channels_last)
            r = run(xt)
            if mirror:
                m = run(xt.flip(3).contiguous(memory_format=torch.channels_last))
                for k in r:
                    r[k] = (r[k] + mirrored_back(k, m[k])) / 2
            for k, v in r.items():
                if k in out:
                    out[k].append(v.numpy().astype(np.float16))
    for k in ("boundary", "affinity"):
        if heads and not out[k]:
            del out[k]
    return {k: np.concatenate(v) for k, v in out.items()}


def label_maps(raw, sizes, params: GroupParams, methods=("cc", "heads")):
    """{"cc": [...], "heads": [...]} label maps at the photos' sizes from `infer`'s maps (`methods`
    of them; "heads" only when the maps have the instance heads')."""
    out = {m: [] for m in methods if m == "cc" or "centre" in raw}
    for j, (h, w) in enumerate(sizes):
        fg = raw["fg"][j].astype(np.float32)
        if "cc" in out:
            mask = cv2.resize(fg, (int(w), int(h)), interpolation=cv2.INTER_LINEAR) >= params.fg_threshold
            out["cc"].append(ordered(*components(mask, params.speck)))
        if "heads" in out:
            use_b = "boundary" in raw and (params.boundary_threshold is not None or params.split_check is not None)
            b = raw["boundary"][j].astype(np.float32) if use_b else None
            out["heads"].append(group(fg, raw["centre"][j].astype(np.float32), raw["offset"][j].astype(np.float32),
                                      b, (int(h), int(w)), params))
    return out


def write_labels(folder: Path, names, maps):
    folder.mkdir(parents=True, exist_ok=True)
    for name, m in zip(names, maps):
        cv2.imwrite(str(folder / f"{name}.png"), m.astype(np.uint8 if m.max() < 256 else np.uint16))


def gather(model, a, tag, names, photos):
    """`infer`'s maps for one group of photos, from tag's raw file with --regroup, else computed
    (and saved). Returns (raw dict, names, sizes)."""
    path = Path(a.out) / f"raw-{tag}.npz"
    if a.regroup:
        z = np.load(path)
        return {k: z[k] for k in z.files if k not in ("names", "sizes")}, list(z["names"]), z["sizes"]
    t = time.time()
    raw = infer(model, photos, a.size, a.mirror)
    sizes = np.array([p.shape[:2] for p in photos])
    np.savez(path, names=np.array(names), sizes=sizes, **raw)
    print(f"{tag}: {len(photos)} photos through the network in {time.time() - t:.0f} s", flush=True)
    return raw, names, sizes


def tune_photos(count, items):
    """[(key, photo, bool ground truth)]: `count` DUTS-TE extra photos whose ground truth is one
    object (the real over-split check's rule), drawn with TUNE_PHOTOS_SEED, none of them one of the
    tuning set's own untouched photos (`items`). The extra pairs may be trained on, never val500."""
    taken = {e["sources"]["photo"] for e, _, _ in items if e["stratum"]["objects"] == "photo"}
    split = load_split("extra")
    out = []
    for k in np.random.default_rng(TUNE_PHOTOS_SEED).permutation(len(split)).tolist():
        if len(out) == count:
            break
        photo, mask = split.pair(k)
        if str(split.keys[k]) not in taken and is_single_object(mask):
            out.append((str(split.keys[k]), photo, mask >= 128))
    return out


def tuning_keys() -> set:
    """The DUTS-TE extra keys the instance tuning set (WORK/tune: its objects, backgrounds and
    untouched photos) and tune_photos(400) use: what a training run that draws on the extra pairs
    must leave out so that the tuning figures stay unseen. Needs `make_eval_set.py --set tune`."""
    if not (WORK / "tune" / "manifest.json").exists():
        sys.exit("the instance tuning set is missing: run Tools/instances/make_eval_set.py --set tune first")
    items = read_set(WORK / "tune")
    keys = {key for e, _, _ in items for v in e["sources"].values() for key in ([v] if isinstance(v, str) else v)}
    return keys | {key for key, _, _ in tune_photos(400, items)}


def review_verdict(entry, review) -> str | int | None:
    """What the by-eye `review` ({("extra", key): "one", N or None}) says of a tuning-set image:
    "one" for a composite or a photo it leaves as one object, else the photo's N or None."""
    if entry["stratum"]["objects"] != "photo":
        return "one"
    return review.get(("extra", entry["sources"]["photo"]), "one")


def tuning_figures(items, names, maps, photos, photo_maps, review):
    """How `tune` judges one setting's label maps: `maps` of the tuning set's images (`names`, in
    `items`' read_set form) and `photo_maps` of `photos` ([(key, photo, bool ground truth)]).
    Returns (summary of all images, of the composites, over-split of the single photos, split of
    the several-object ones, how many photos the over-split counts, {relation: the composites'
    split of that relation}); the photos `review` ({("extra", key): "one", N or None}) lists as
    several objects or unclear are left out of the first and the third."""
    gts = {e["name"]: (e, gt, pairs) for e, gt, pairs in items}
    recs, several = [], []
    for n, m in zip(names, maps):
        e, gt, pairs = gts[n]
        v = review_verdict(e, review)
        if v == "one":
            recs.append((e["stratum"], score_image(gt, m, pairs)))
        elif v is not None:
            several.append(object_segments(gt > 0, m)[1] >= 2)
    over = [r["n_pred"] >= 2 for st, r in recs if st["objects"] == "photo"]
    for (key, _, gt), m in zip(photos, photo_maps):
        v = review.get(("extra", key), "one")
        if v == "one":
            over.append(oversplit(gt, m)[0])
        elif v is not None:
            several.append(object_segments(gt, m)[1] >= 2)
    composites = [(st, r) for st, r in recs if st["objects"] != "photo"]
    by_relation = {rel: summarise([r for st, r in composites if st["relation"] == rel])["split"]
                   for rel in sorted({st["relation"] for st, _ in composites})}
    return (summarise([r for _, r in recs]), summarise([r for _, r in composites]),
            float(np.mean(over)) if over else float("nan"), float(np.mean(several)) if several else float("nan"),
            len(over), by_relation)


def tune(raw, names, sizes, items, base: GroupParams, out: Path, photos=(), photos_raw=None, photos_sizes=(),
         review=None):
    """Grid over TUNE_GRID (SPLIT_CHECK_GRID when `base` has a split check) on the tuning set: PQ over
    all its images, the composites' split rate, the over-split of the real single-object photos (the
    set's untouched ones and `photos`, with their maps `photos_raw`); the best PQ, the best within
    cc's over-split + 2 points, and the best a standard error of that over-split inside the bound.
    With `review` ({("extra", key): N or None}, real_review.load of real_review.EXTRA_REVIEW) the photos it lists
    leave PQ and the over-split (their one-region ground truth is several objects, or unclear), and
    those marked `several N` give one more figure: the share split into >= 2 subjects on the region."""
    grid = SPLIT_CHECK_GRID if base.split_check is not None else TUNE_GRID
    if base.split_check is not None and len(base.split_check) == 5:  # the support weighed, not thresholded
        grid = grid | {"min_support": (0.0,)}
    print(f"split check: {base.split_check or 'none'}", flush=True)
    review = review or {}

    def evaluate(maps, photo_maps):
        return tuning_figures(items, names, maps, photos, photo_maps, review)[:4]

    def photo_maps(params, method):
        return label_maps(photos_raw, photos_sizes, params, (method,))[method] if photos else []

    cc = label_maps(raw, sizes, base, ("cc",))["cc"]
    cc_all, cc_comp, cc_over, cc_several = evaluate(cc, photo_maps(base, "cc"))
    verdicts = [review_verdict(e, review) for e, _, _ in items if e["stratum"]["objects"] == "photo"]
    verdicts += [review.get(("extra", key), "one") for key, _, _ in photos]
    n_photos = verdicts.count("one")
    n_left = len(verdicts) - n_photos
    n_several = n_left - verdicts.count(None)
    print(f"tuning set: {len(names)} images and {len(photos)} more single-object photos, {n_left} of all the "
          f"photos left out as not one object by the review ({n_several} several objects); connected components of "
          f"the same foreground: PQ {cc_all['pq']:.3f}, composites' split {cc_comp['split']:.3f}, over-split of "
          f"{n_photos} photos {cc_over:.3f}, several-object photos split {cc_several:.3f}")
    keys = list(grid)
    print("| " + " | ".join(keys) + " | PQ | SQ | RQ | count acc | composites: PQ | split | photos: over-split | "
          "several split |")
    print("|" + "---|" * (len(keys) + 8))
    rows = []
    for values in np.array(np.meshgrid(*[np.arange(len(grid[k])) for k in keys], indexing="ij")).reshape(len(keys), -1).T:
        setting = {k: grid[k][int(i)] for k, i in zip(keys, values)}
        if setting["boundary_threshold"] is not None and "boundary" not in raw:
            continue
        chosen = dataclasses.replace(base, **setting)
        al, comp, over, several = evaluate(label_maps(raw, sizes, chosen, ("heads",))["heads"], photo_maps(chosen, "heads"))
        rows.append({"setting": setting, "pq": al["pq"], "sq": al["sq"], "rq": al["rq"], "count_acc": al["count_acc"],
                     "composites_pq": comp["pq"], "split": comp["split"], "oversplit": over, "several_split": several})
        print("| " + " | ".join(str(setting[k]) for k in keys) + f" | {al['pq']:.3f} | {al['sq']:.3f} | {al['rq']:.3f} | "
              f"{al['count_acc']:.3f} | {comp['pq']:.3f} | {comp['split']:.3f} | {over:.3f} | {several:.3f} |", flush=True)
    best = max(rows, key=lambda r: r["pq"])
    bounded = [r for r in rows if r["oversplit"] <= cc_over + 0.02]
    print(f"best PQ {best['pq']:.3f}: {best['setting']} (photos' over-split {best['oversplit']:.3f})")
    if bounded:
        b = max(bounded, key=lambda r: r["pq"])
        print(f"best PQ within cc's over-split + 2 points: {b['pq']:.3f}: {b['setting']} (over-split {b['oversplit']:.3f}); "
              "give these as flags (--boundary-threshold none for None) to score the eval set")
    bound = cc_over + 0.02
    margin = bound - math.sqrt(bound * (1 - bound) / n_photos)  # the over-split's standard error at the bound
    inside = [r for r in rows if r["oversplit"] <= margin]
    if inside:
        b = max(inside, key=lambda r: r["pq"])
        print(f"best PQ a standard error inside the bound (over-split <= {margin:.3f}): {b['pq']:.3f}: {b['setting']} "
              f"(split {b['split']:.3f}, over-split {b['oversplit']:.3f}, several-object photos split "
              f"{b['several_split']:.3f})")
    (out / "tune.json").write_text(json.dumps({"cc": {"pq": cc_all["pq"], "split": cc_comp["split"], "oversplit": cc_over,
                                                      "several_split": cc_several},
                                               "left_out_by_review": n_left, "grid": rows}, indent=1) + "\n")


def prepare_run(a) -> Path:
    """Threads for torch (a.threads) and OpenCV (1); a.name and a.out filled in from the checkpoint
    (.work/pred/NAME); returns the output folder, made."""
    torch.set_num_threads(a.threads)
    cv2.setNumThreads(1)
    ckpt = Path(a.checkpoint)
    a.name = a.name or f"{ckpt.parent.name}/{ckpt.name}"
    a.out = a.out or str(WORK / "pred" / a.name.replace("/", "-"))
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--checkpoint", required=True, help="a train_subject.py .pt (best.pt / last.pt) or an exported .safetensors")
    ap.add_argument("--which", default="ema", choices=("ema", "model"), help="a last.pt's weights")
    ap.add_argument("--name", help="what the tables call it (default: the checkpoint's folder and file)")
    ap.add_argument("--out", help="default Tools/instances/.work/pred/NAME")
    ap.add_argument("--size", type=int, default=256)
    ap.add_argument("--no-mirror", dest="mirror", action="store_false", help="one pass (as `fast` would)")
    ap.add_argument("--set", default=str(WORK / "eval"), help="the instance set (built by make_eval_set.py if missing)")
    ap.add_argument("--tune", action="store_true", help="grid over group.py's thresholds on --tune-set instead")
    ap.add_argument("--tune-set", default=str(WORK / "tune"))
    ap.add_argument("--tune-photos", type=int, default=TUNE_PHOTOS,
                    help="--tune: this many more single-object DUTS-TE extra photos in the over-split bound "
                         "(the set's own 100 are too few to hold it)")
    ap.add_argument("--tune-review", default=str(real_review.EXTRA_REVIEW),
                    help="--tune: the by-eye review of its real photos (real_review.py's format; 'none': every "
                         "single-region photo counts as one object, as it was before the review)")
    ap.add_argument("--no-real", dest="real", action="store_false", help="skip the real single-object photos")
    ap.add_argument("--regroup", action="store_true", help="reuse the raw maps of an earlier run in --out")
    ap.add_argument("--fg", action="store_true", help="also eval_subject.py on DUTS-TE / ECSSD val500 against --against")
    ap.add_argument("--against", default=str(REPO / "Weights/subject.safetensors"), help="--fg: the reference (the shipped file)")
    ap.add_argument("--threads", type=int, default=1)
    for f in dataclasses.fields(GroupParams):  # defaults: the setting Lift ships (group.SHIPPED)
        shipped = getattr(SHIPPED, f.name)
        ap.add_argument("--" + f.name.replace("_", "-"), type=lambda v, t=f.type: None if v == "none" else
                        (int(v) if t == "int" else tuple(map(float, v.split(","))) if t.startswith("tuple") else float(v)),
                        default=shipped, help=f"group.py (default {shipped}, shipped; a tuple as a,b,c)")
    a = ap.parse_args()
    out = prepare_run(a)
    params = GroupParams(**{f.name: getattr(a, f.name) for f in dataclasses.fields(GroupParams)})
    set_dir = Path(a.tune_set if a.tune else a.set)
    if not (set_dir / "manifest.json").exists():
        cmd = [sys.executable, "-m", "liftpy.instances.make_eval_set", "--set", "tune" if a.tune else "eval", "--out", str(set_dir)]
        print("building the set:", " ".join(cmd), flush=True)
        subprocess.run(cmd, check=True)
    model = None
    if not a.regroup:
        model, label = load_model(a.checkpoint, a.which)
        print(f"model: {label}; instance heads: {'yes' if model.instance is not None else 'no (cc only)'}", flush=True)
    items = read_set(set_dir)
    set_tag = "tune" if a.tune else "eval"
    photos = None if a.regroup else [cv2.imread(str(set_dir / e["files"]["image"]), cv2.IMREAD_COLOR)[..., ::-1] for e, _, _ in items]
    raw, names, sizes = gather(model, a, set_tag, [e["name"] for e, _, _ in items], photos)
    if a.tune:
        if "centre" not in raw:
            sys.exit("--tune needs a checkpoint with instance heads")
        ph = tune_photos(a.tune_photos, items)
        p_raw, _, p_sizes = gather(model, a, "tune-photos", [k for k, _, _ in ph], [p for _, p, _ in ph])
        review = {} if a.tune_review == "none" else real_review.load(Path(a.tune_review))
        tune(raw, names, sizes, items, params, out, ph, p_raw, p_sizes, review)
        return
    t = time.time()
    maps = label_maps(raw, sizes, params)
    for method, ms in maps.items():
        write_labels(out / method / "set", names, ms)
    if a.real:
        for s in REAL_SETS:
            ph = [] if a.regroup else real_photos(s)
            r, keys, sz = gather(model, a, f"real-{s}", [k for k, _, _ in ph], [p for _, p, _ in ph])
            for method, ms in label_maps(r, sz, params).items():
                write_labels(out / method / "real" / s, keys, ms)
    print(f"grouped and written in {time.time() - t:.0f} s; group.py settings {dataclasses.asdict(params)}", flush=True)
    (out / "settings.json").write_text(json.dumps({"checkpoint": a.checkpoint, "which": a.which, "mirror": a.mirror,
                                                   "size": a.size, "group": dataclasses.asdict(params)}, indent=1) + "\n")
    for method in maps:
        cmd = [sys.executable, "-m", "liftpy.instances.eval_instances", "--set", str(set_dir), "--pred", str(out / method / "set"),
               "--name", f"{a.name} {method}", "--json", str(out / f"{method}.json")]
        if a.real:
            cmd += ["--pred-real", str(out / method / "real")]
        print("\n$ " + " ".join(cmd), flush=True)
        subprocess.run(cmd, check=True)
    if a.fg:
        cmd = [sys.executable, "-m", "liftpy.evaluation.eval_subject", "--sets", "duts,ecssd", "--mirror", "--halves",
               "--size", str(a.size), "--checkpoint", a.checkpoint, "--which", a.which, "--against", a.against,
               "--threads", str(a.threads), "--json", str(out / "fg.json")]
        print("\n$ " + " ".join(cmd), flush=True)
        subprocess.run(cmd, check=True)


if __name__ == "__main__":
    main()
