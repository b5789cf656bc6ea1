"""Scores instance label maps on the instance evaluation set (make_eval_set.py) and checks over-splitting
on real photos whose ground truth is one object; runs the two baselines; tunes the watershed one.

Metrics (metrics.py has the exact definitions): PQ / SQ / RQ with IoU > 0.5 matching, the split
rate of touching ground-truth pairs (strict: both matched; `loose`: different dominant segments),
instance-count accuracy, broken down by instance count, same / different objects and relation;
predicted segments under 0.5 % of the image are ignored. Over-split: on the DUTS-TE val500 and ECSSD
val500 photos whose ground truth is one connected component once specks under 0.05 % are ignored
(sources.is_single_object), the share with >= 2 meaningful predicted segments; then the same photos
after the by-eye review of real-review.tsv (real_review.py): over-split on those reviewed as one
object, and on those showing several touching objects the share split into >= 2 subjects.

What it scores:
  --pred DIR          label maps for the set's images, DIR/NAME.png or DIR/NAME.labels.png (8- or
                      16-bit grey PNG, 0 = background), e.g. `lift IMAGES -o OUT --labels DIR`
  --pred-real DIR     label maps for the over-split check, DIR/duts/KEY.png and DIR/ecssd/KEY.png
                      (KEY: the DUTS / ECSSD key; `--list-real` prints which photos are used)
  --baselines         (a) Lift as it is: the binary's own label maps (connected components of its
                      mask), (b) the distance-transform watershed of watershed.py on the same mask;
                      runs `lift DIR -o … --mask … --labels … -j 1` on the set's images and on the
                      single-object photos (written as PNG to a temporary folder, as
                      Tools/evaluation/eval_subject.py does), keeping the outputs in
                      Tools/instances/.work/lift/ (reused while the binary's and the subject model
                      file's sha256 are the same)
  --by-model          also (c): the binary with `--instances-by model`, the model's instance heads
                      grouped in Swift with the shipped thresholds, end to end as a user gets them
                      (the subject file of $LIFT_WEIGHTS, else Weights/, must have heads)
  --tune              grid over the watershed's h and sigma on the tuning set (make_eval_set.py
                      --set tune): the best PQ over all its images, and the best PQ among settings
                      whose over-split on its untouched photos stays within 2 points of connected
                      components'; never looks at the eval set

  .venv/bin/python -m liftpy.instances.eval_instances --baselines
  .venv/bin/python -m liftpy.instances.eval_instances --pred OUT/labels --pred-real OUT/real --json r.json
  .venv/bin/python -m liftpy.instances.eval_instances --tune

The lift binary: --lift BIN, default .build/release/lift (build it with
`swift build -c release --product lift`; this script never builds it).
"""
from __future__ import annotations

import argparse
import hashlib
import json
import math
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import cv2
import numpy as np

from liftpy.duts_data import VAL_SETS, load_split
from liftpy.instances import real_review
from liftpy.instances import watershed as ws
from liftpy.instances.metrics import object_segments, score_image, summarise
from liftpy.instances.sources import is_single_object

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
WORK = HERE / ".work"
TUNE_H = (0.005, 0.01, 0.015, 0.02, 0.03, 0.04, 0.06, 0.08, 0.12)
TUNE_SIGMA = (0.0, 0.005, 0.01)


def read_labels(path: Path) -> np.ndarray:
    m = cv2.imread(str(path), cv2.IMREAD_UNCHANGED)
    if m is None:
        sys.exit(f"cannot read label map {path}")
    if m.ndim == 3:
        sys.exit(f"{path}: a label map must be one grey channel")
    return m


def read_set(folder: Path):
    """[(entry, ground-truth labels, touching pairs)] of a set built by make_eval_set.py."""
    manifest = json.loads((folder / "manifest.json").read_text())
    items = []
    for e in manifest["images"]:
        gt = read_labels(folder / e["files"]["labels"])
        pairs = [(i, j) for i, j, _, adjacent in e["pairs"] if adjacent]
        items.append((e, gt, pairs))
    return items


def find_pred(folder: Path, name: str) -> np.ndarray:
    for candidate in (folder / f"{name}.png", folder / f"{name}.labels.png"):
        if candidate.exists():
            return read_labels(candidate)
    sys.exit(f"no label map for {name} in {folder}")


def real_photos(set_name: str):
    """[(key, photo, bool ground truth)] of the val500 photos of `duts` or `ecssd` whose ground truth is one object."""
    split = load_split(VAL_SETS[set_name])
    out = []
    for k in range(len(split)):
        photo, mask = split.pair(k)
        if is_single_object(mask):
            out.append((str(split.keys[k]), photo, mask >= 128))
    return out


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def subject_model_file() -> Path:
    """The subject model file the binary loads: $LIFT_WEIGHTS's, else the repository's."""
    return Path(os.environ.get("LIFT_WEIGHTS") or REPO / "Weights") / "subject.safetensors"


def run_lift(binary: str, inputs: Path, out: Path, names, digest: str = "", extra=()):
    """Lift's label maps for every image of `inputs` (kept in out/labels, masks in out/masks),
    with `extra` arguments, rerunning only when the binary, the subject model file, the arguments,
    the file names or `digest` (of the inputs' content) changed."""
    stamp = {"binary_sha256": sha256_file(Path(binary)), "model_sha256": sha256_file(subject_model_file()),
             "args": list(extra), "inputs": sorted(names), "inputs_digest": digest}
    stamp_file = out / "stamp.json"
    if stamp_file.exists() and json.loads(stamp_file.read_text()) == stamp:
        return out / "labels"
    for sub in ("cutouts", "masks", "labels"):
        (out / sub).mkdir(parents=True, exist_ok=True)
    cmd = [binary, str(inputs), "-o", str(out / "cutouts"), "--mask", str(out / "masks"),
           "--labels", str(out / "labels"), "--force", "--quiet", "-j", "1", *extra]
    print(f"running {' '.join(cmd)}", flush=True)
    subprocess.run(cmd, check=True)
    stamp_file.write_text(json.dumps(stamp))
    return out / "labels"


BY_MODEL = ("--instances-by", "model")
CC, BY_MODEL_NAME = "lift (connected components)", "lift --instances-by model"  # methods' names in the tables


def lift_on_set(binary, set_dir: Path, items, tag: str, extra=()):
    names = [Path(e["files"]["image"]).name for e, _, _ in items]
    folder = WORK / "lift" / (f"{tag}-by-model" if extra else tag)
    return run_lift(binary, set_dir / "images", folder, names, sha256_file(set_dir / "manifest.json"), extra)


def lift_on_real(binary, set_name, photos, extra=()):
    with tempfile.TemporaryDirectory() as tmp:
        for key, photo, _ in photos:
            cv2.imwrite(str(Path(tmp) / f"{key}.png"), photo[..., ::-1])
        folder = WORK / "lift" / (f"real-{set_name}-by-model" if extra else f"real-{set_name}")
        return run_lift(binary, Path(tmp), folder, [f"{k}.png" for k, _, _ in photos], extra=extra)


GROUPS = (("all", lambda s: True),
          *((f"K={k}", (lambda k: lambda s: s["count"] == k)(k)) for k in (1, 2, 3, 4)),
          *((o, (lambda o: lambda s: s["objects"] == o)(o)) for o in ("single", "same", "different", "photo")),
          *((r, (lambda r: lambda s: s["relation"] == r)(r)) for r in ("gap", "touch", "overlap", "split")))


def score_set(items, predictions) -> dict:
    """Summaries per group (GROUPS) and per full stratum; predictions: name -> label map."""
    records = []
    for e, gt, pairs in items:
        records.append((e["stratum"], score_image(gt, predictions(e["name"]), pairs)))
    out = {}
    for name, keep in GROUPS:
        chosen = [r for s, r in records if keep(s)]
        if chosen:
            out[name] = summarise(chosen)
    strata = {}
    for s, r in records:
        strata.setdefault(f"{s['count']}/{s['objects']}/{s['relation']}", []).append(r)
    out["strata"] = {k: summarise(v) for k, v in sorted(strata.items())}
    return out


def oversplit_flags(photos, predictions) -> list:
    """For each single-region photo, (photo split, object split, segments mostly on the region):
    `metrics.oversplit`'s two flags and the count behind the second."""
    out = []
    for key, _, gt in photos:
        segments, on_object = object_segments(gt, predictions(key))
        out.append((segments >= 2, on_object >= 2, on_object))
    return out


def score_real(flags) -> dict:
    n = len(flags)
    rate = float(np.mean([f[0] for f in flags])) if n else math.nan
    obj = float(np.mean([f[1] for f in flags])) if n else math.nan
    return {"photos": n, "oversplit": rate, "oversplit_se": math.sqrt(rate * (1 - rate) / n) if n else math.nan,
            "oversplit_object": obj}


def print_set_table(method, summary):
    print(f"\n{method}: instance eval set")
    print("| group | images | PQ | SQ | RQ | touching pairs | split | split (loose) | count acc |")
    print("|---|---|---|---|---|---|---|---|---|")
    for name, _ in GROUPS:
        if name not in summary:
            continue
        s = summary[name]
        split = f"{s['split']:.3f}" if s["pairs"] else "-"
        loose = f"{s['split_loose']:.3f}" if s["pairs"] else "-"
        print(f"| {name} | {s['images']} | {s['pq']:.3f} | {s['sq']:.3f} | {s['rq']:.3f} | {s['pairs']} | "
              f"{split} | {loose} | {s['count_acc']:.3f} |")


def paired_oversplit(flags, base, other, keep=None) -> dict:
    """Per real set, `other`'s over-split minus `base`'s over the same photos (those `keep[set]`
    marks, default all), with its paired standard error and how many photos only one of them splits."""
    out = {}
    for s, a in flags[base].items():
        d = np.array([y[0] for y in flags[other][s]], float) - np.array([x[0] for x in a], float)
        if keep is not None:
            d = d[np.asarray(keep[s], bool)]
        out[s] = {"difference": float(d.mean()), "se": float(d.std(ddof=1) / math.sqrt(len(d))),
                  "only_other": int((d > 0).sum()), "only_base": int((d < 0).sum())}
    return out


def score_reviewed(set_name, photos, flags, review) -> dict:
    """real_review.py's two figures for one real set: over-split on the photos the review left as
    one object; on those marked `several N`, the share split into >= 2 subjects on the region and
    the share with exactly N."""
    single = [f[0] for (key, _, _), f in zip(photos, flags) if (set_name, key) not in review]
    several = [(f[2], review[(set_name, key)]) for (key, _, _), f in zip(photos, flags)
               if review.get((set_name, key)) is not None]
    rate = float(np.mean(single)) if single else math.nan
    split = float(np.mean([c >= 2 for c, _ in several])) if several else math.nan
    return {"single_photos": len(single), "oversplit": rate,
            "oversplit_se": math.sqrt(rate * (1 - rate) / len(single)) if single else math.nan,
            "several_photos": len(several), "several_split": split,
            "several_split_se": math.sqrt(split * (1 - split) / len(several)) if several else math.nan,
            "several_count_exact": float(np.mean([c == n for c, n in several])) if several else math.nan}


def print_reviewed_table(rows):
    print("\nthe same photos after the by-eye review (real_review.py): over-split on the reviewed single objects; "
          "photos of several touching objects split into >= 2 subjects, and into exactly as many as there are")
    print("| method | set | single objects | over-split | ± SE | several objects | split | ± SE | count exact |")
    print("|---|---|---|---|---|---|---|---|---|")
    for method, set_name, r in rows:
        print(f"| {method} | {set_name} | {r['single_photos']} | {r['oversplit']:.3f} | {r['oversplit_se']:.3f} | "
              f"{r['several_photos']} | {r['several_split']:.3f} | {r['several_split_se']:.3f} | "
              f"{r['several_count_exact']:.3f} |")


def print_real_table(rows):
    print("\nover-split on single-object validation photos (>= 2 segments of >= 0.5 % of the photo)")
    print("| method | set | photos | over-split | ± SE | of the object |")
    print("|---|---|---|---|---|---|")
    for method, set_name, r in rows:
        print(f"| {method} | {set_name} | {r['photos']} | {r['oversplit']:.3f} | {r['oversplit_se']:.3f} | "
              f"{r['oversplit_object']:.3f} |")


def tune(binary, set_dir: Path):
    """Grid over the watershed's (h, sigma) on the tuning set; prints the setting with the best PQ
    over all its images, and the best one whose over-split on the set's untouched single-object
    photos stays within 2 points of connected components' (the bound a model is held to)."""
    items = read_set(set_dir)
    labels_dir = lift_on_set(binary, set_dir, items, "tune")
    lift = {e["name"]: find_pred(labels_dir, e["name"]) for e, _, _ in items}

    def evaluate(predict):
        recs = [(e["stratum"]["objects"], score_image(gt, predict(e["name"]), p)) for e, gt, p in items]
        photos = [r for o, r in recs if o == "photo"]
        return (summarise([r for _, r in recs]), summarise([r for o, r in recs if o != "photo"]),
                float(np.mean([r["n_pred"] >= 2 for r in photos])) if photos else math.nan)

    cc_all, cc_comp, cc_over = evaluate(lift.__getitem__)
    print(f"tuning set {set_dir}: {len(items)} images; connected components: PQ {cc_all['pq']:.3f}, "
          f"composites' split {cc_comp['split']:.3f}, photos' over-split {cc_over:.3f}")
    print("| h | sigma | PQ | SQ | RQ | count acc | composites: PQ | split | photos: over-split |")
    print("|---|---|---|---|---|---|---|---|---|")
    results = []
    for h in TUNE_H:
        for sigma in TUNE_SIGMA:
            preds = {n: ws.watershed_instances(m > 0, h, sigma) for n, m in lift.items()}
            a, comp, over = evaluate(preds.__getitem__)
            results.append((a["pq"], h, sigma, over))
            print(f"| {h} | {sigma} | {a['pq']:.3f} | {a['sq']:.3f} | {a['rq']:.3f} | {a['count_acc']:.3f} | "
                  f"{comp['pq']:.3f} | {comp['split']:.3f} | {over:.3f} |", flush=True)
    best = max(results)
    bounded = max([r for r in results if r[3] <= cc_over + 0.02], default=None)
    print(f"best PQ {best[0]:.3f}: h = {best[1]}, sigma = {best[2]} (photos' over-split {best[3]:.3f})")
    if bounded:
        print(f"best PQ within the over-split bound {bounded[0]:.3f}: h = {bounded[1]}, sigma = {bounded[2]} "
              f"(photos' over-split {bounded[3]:.3f})")
    print(f"watershed.py holds H, SIGMA = {ws.H}, {ws.SIGMA} and H_BOUNDED, SIGMA_BOUNDED = {ws.H_BOUNDED}, {ws.SIGMA_BOUNDED}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--set", default=str(WORK / "eval"), help="the evaluation set's folder (manifest.json)")
    ap.add_argument("--pred", help="label maps to score on the set")
    ap.add_argument("--pred-real", help="label maps to score on the single-object photos: DIR/duts, DIR/ecssd")
    ap.add_argument("--name", default="predictions", help="what --pred/--pred-real are, for the tables")
    ap.add_argument("--baselines", action="store_true", help="score Lift's connected components and the watershed")
    ap.add_argument("--by-model", action="store_true", help="also score the binary's --instances-by model")
    ap.add_argument("--lift", default=str(REPO / ".build/release/lift"))
    ap.add_argument("--tune", action="store_true", help="tune the watershed on the tuning set")
    ap.add_argument("--tune-set", default=str(WORK / "tune"))
    ap.add_argument("--real-sets", default="duts,ecssd")
    ap.add_argument("--list-real", action="store_true", help="print the keys of the single-object photos and stop")
    ap.add_argument("--json", help="write every figure here")
    a = ap.parse_args()
    cv2.setNumThreads(1)
    real_sets = [s for s in a.real_sets.split(",") if s]
    if a.list_real:
        for set_name in real_sets:
            for key, _, _ in real_photos(set_name):
                print(f"{set_name}/{key}")
        return
    if (a.baselines or a.by_model or a.tune) and not Path(a.lift).exists():
        sys.exit(f"no lift binary at {a.lift}: build it with `swift build -c release --product lift` or give --lift")
    if a.tune:
        tune(a.lift, Path(a.tune_set))
        return
    if not (a.pred or a.pred_real or a.baselines or a.by_model):
        ap.error("nothing to score: give --pred, --pred-real, --baselines, --by-model or --tune")
    set_dir = Path(a.set)
    results, real_rows, reviewed_rows, flags = {}, [], [], {}
    review = real_review.load()
    lift_runs = a.baselines or a.by_model
    items = read_set(set_dir) if (a.pred or lift_runs) else []
    photos = {s: real_photos(s) for s in real_sets} if (a.pred_real or lift_runs) else {}
    for s, ph in photos.items():  # the review names only photos the check uses
        keys = {key for key, _, _ in ph}
        stray = sorted(k for r, k in review if r == s and k not in keys)
        if stray:
            sys.exit(f"{real_review.REVIEW.name} lists {s} photos that are not single-region ones: {stray[:3]}")
    methods = {}  # method -> (set predictions or None, {real set: predictions} or None)
    if a.baselines:
        labels_dir = lift_on_set(a.lift, set_dir, items, "eval")
        lift_set = {e["name"]: find_pred(labels_dir, e["name"]) for e, _, _ in items}
        lift_real = {}
        for s, ph in photos.items():
            d = lift_on_real(a.lift, s, ph)
            lift_real[s] = {key: find_pred(d, key) for key, _, _ in ph}
        methods[CC] = (lift_set.__getitem__, {s: m.__getitem__ for s, m in lift_real.items()})
        for label, h, sigma in (("best PQ", ws.H, ws.SIGMA), ("over-split bound", ws.H_BOUNDED, ws.SIGMA_BOUNDED)):
            ws_set = {n: ws.watershed_instances(m > 0, h, sigma) for n, m in lift_set.items()}
            ws_real = {s: {k: ws.watershed_instances(m > 0, h, sigma) for k, m in d.items()} for s, d in lift_real.items()}
            methods[f"watershed on lift's mask, {label} (h {h}, sigma {sigma})"] = (
                ws_set.__getitem__, {s: (lambda d: d.__getitem__)(d) for s, d in ws_real.items()})
    if a.by_model:
        labels_dir = lift_on_set(a.lift, set_dir, items, "eval", BY_MODEL)
        real_dirs = {s: lift_on_real(a.lift, s, ph, BY_MODEL) for s, ph in photos.items()}
        methods[BY_MODEL_NAME] = (
            (lambda n: find_pred(labels_dir, n)), {s: (lambda d: lambda k: find_pred(d, k))(d) for s, d in real_dirs.items()})
    if a.pred or a.pred_real:
        set_pred = (lambda n: find_pred(Path(a.pred), n)) if a.pred else None
        real_pred = ({s: (lambda s: lambda k: find_pred(Path(a.pred_real) / s, k))(s) for s in real_sets}
                     if a.pred_real else None)
        methods[a.name] = (set_pred, real_pred)
    for method, (set_pred, real_pred) in methods.items():
        entry = {}
        if set_pred is not None:
            entry["eval_set"] = score_set(items, set_pred)
            print_set_table(method, entry["eval_set"])
        if real_pred is not None:
            entry["oversplit"] = {}
            flags[method] = {s: oversplit_flags(photos[s], real_pred[s]) for s in real_sets}
            for s in real_sets:
                entry["oversplit"][s] = score_real(flags[method][s])
                real_rows.append((method, s, entry["oversplit"][s]))
                entry.setdefault("reviewed", {})[s] = score_reviewed(s, photos[s], flags[method][s], review)
                reviewed_rows.append((method, s, entry["reviewed"][s]))
        results[method] = entry
    if real_rows:
        print_real_table(real_rows)
        print_reviewed_table(reviewed_rows)
    if CC in flags and BY_MODEL_NAME in flags:  # the bound a model is held to, paired over the same photos
        results["paired_oversplit"] = paired = paired_oversplit(flags, CC, BY_MODEL_NAME)
        print(f"\nover-split, {BY_MODEL_NAME} minus {CC}, paired:")
        keep = {s: [(s, key) not in review for key, _, _ in photos[s]] for s in real_sets}
        results["paired_oversplit_reviewed"] = reviewed = paired_oversplit(flags, CC, BY_MODEL_NAME, keep)
        for label, table in (("", paired), (", reviewed single objects only", reviewed)):
            for s, r in table.items():
                print(f"  {s}{label}: {r['difference']:+.3f} ± {r['se']:.3f} ({r['only_other']} photos split only by "
                      f"the model, {r['only_base']} only by the components)")
    if a.json:
        manifest_sha = sha256_file(set_dir / "manifest.json") if items else None
        Path(a.json).write_text(json.dumps({"set": str(set_dir), "manifest_sha256": manifest_sha,
                                            "results": results}, indent=1) + "\n")


if __name__ == "__main__":
    main()
