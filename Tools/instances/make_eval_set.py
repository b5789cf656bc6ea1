"""Builds the fixed instance evaluation set (from DUTS-TE val500 only) or the watershed tuning set
(from the DUTS-TE extra pairs), deterministically from a seed.

  .venv/bin/python -m liftpy.instances.make_eval_set                 # eval: Tools/instances/.work/eval/
  .venv/bin/python -m liftpy.instances.make_eval_set --set tune      # tune: Tools/instances/.work/tune/

Sources. eval: foregrounds and backgrounds both from the 500 DUTS-TE validation pairs
(../shared/data/duts/duts-te-val500-320-000.tar), which no Lift model trains on; the background of
an image never comes from a photo whose object is in it. DUTS-TR, which the generator
(synth.py) uses, is not touched. tune: the same recipe on the 4,019 DUTS-TE extra pairs, plus
untouched single-object extra photos, for choosing baseline or post-processing parameters
without looking at the eval set (the extra pairs may be trained on, see ../shared/data/README.md).

Strata (per image: instance count, same object or different objects, relation):
  eval: 50 single objects; for K = 2, 3, 4 x {same, different} x {gap, touch, overlap} 25 each
        (450); 40 pairs in which the second object cuts the first into two visible pieces
        ("split", different objects): 540 images.
  tune: 20 single objects, 10 per (K, same/different, relation), 16 split, and 100 untouched
        photos whose ground truth is one object: 316 images.
  fit:  the tune recipe, bigger, with its own seed, for fitting what post-processing learns (the
        split check): 40 single, 40 per stratum, 40 split, 400 untouched photos (none of them the
        tune set's photos or predict.py --tune's 400 more, so the tune set still chooses the
        thresholds on photos the fit never saw): 1,200 images. Built after the tune set.
Every object of an image after the first is placed in the stratum's relation to an earlier one
(composite.py); the image is kept only if the measured relations (targets.pair_relations, r = 2 px)
agree: `gap` no two instances within 2 px (a `gap` object is moved >= 8 px, 8-30 % of its
sqrt(area), beyond touching: apart at the network's 256 px too); `touch` each placed pair adjacent and no pair
overlapping; `overlap` each placed pair overlapping; `split` the first object visible in two pieces
(each >= 10 % of its visible area). Otherwise the image is drawn again with the next attempt
number (its seed is [seed, index, attempt], recorded).

Why 384 px on the longer side (canvases 384x384, 384x288, 288x384, 384x256): the foregrounds come
from 320-px photos, so a larger canvas would only enlarge them (and the smaller background regions
even more); 384 leaves room for four objects at close to their own resolution (never enlarged more
than 1.25x) and Lift runs its network at 256x256 whatever the size. Images are JPEG (quality
75-95, as photos are), after the same kinds of degradation as training composites, milder.

Files (OUT/): images/NNNN.jpg (or .png for the tune set's photos), labels/NNNN.png (8-bit instance
ids, 0 background, 1..K in paste order), masks/NNNN.png (the soft union alpha, 0-255), and
manifest.json: per image its files and their sha256, stratum, seed, sources (DUTS keys), canvas
size, JPEG quality, instance areas and measured pair relations. The script prints the sha256 of
manifest.json: the same seed and pinned packages give the same bytes (on the same kind of CPU:
OpenCV picks SIMD paths by CPU), so a rebuild is checked against the digest in Tools/instances/README.md.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import time
from pathlib import Path

import cv2
import numpy as np

from liftpy.instances.composite import Params, compose
from liftpy.instances.degrade import Degradation, degrade
from liftpy.instances.sources import SourceBank
from liftpy.instances.targets import pair_relations, visible_pieces

HERE = Path(__file__).resolve().parent
SETS = {  # name -> (DUTS split, default seed, singles, per stratum, split stratum, untouched photos)
    "eval": ("val", 39, 50, 25, 40, 0),
    "tune": ("extra", 3900, 20, 10, 16, 100),
    "fit": ("extra", 3940, 40, 40, 40, 400),
}
CANVASES = ((384, 384), (288, 384), (384, 288), (256, 384))  # (H, W)
EVAL_PARAMS = Params(size=(0.5, 0.85), max_upscale=1.25, min_area=0.01, min_in_canvas=0.85, gap=(0.08, 0.3), min_gap=8.0)
EVAL_DEGRADATION = Degradation(jitter=0.08, blur_p=0.2, blur=(0.3, 0.7), noise_p=0.3, noise=(1.0, 3.0), jpeg_p=0.0)
JPEG_QUALITY = (75, 95)
MAX_ATTEMPTS = 200


def excluded_foregrounds():
    """The val500 keys of excluded-foregrounds.txt (several objects in one ground-truth component)."""
    lines = (HERE / "excluded-foregrounds.txt").read_text().splitlines()
    return {ln.strip() for ln in lines if ln.strip() and not ln.startswith("#")}


def strata(name):
    """[(count, objects, relation)] per image, in file order."""
    _, _, singles, per, split, photos = SETS[name]
    out = [(1, "single", "single")] * singles
    for k in (2, 3, 4):
        for objects in ("same", "different"):
            for relation in ("gap", "touch", "overlap"):
                out += [(k, objects, relation)] * per
    out += [(2, "different", "split")] * split
    out += [(1, "photo", "single")] * photos
    return out


def agrees(stratum, c, pairs) -> bool:
    """Does the composite realise its stratum (module docstring)?"""
    k, objects, relation = stratum
    if len(c.keys) - 1 != k:
        return False
    measured = {(i, j): (rel, adj) for i, j, rel, adj in pairs}
    placed = [(min(a, b) + 1, max(a, b) + 1) for a, b, _ in c.relations]
    if relation == "gap":
        return not any(adj for _, _, _, adj in pairs)
    if relation == "touch":
        return all(measured[p] == ("touch", True) for p in placed) and not any(r == "overlap" for _, _, r, _ in pairs)
    if relation == "overlap":
        return all(measured[p][0] == "overlap" for p in placed)
    if relation == "split":
        return visible_pieces(c.ids, 1) >= 2
    return True


def encode(ext, img, *params):
    ok, buf = cv2.imencode(ext, img, list(params))
    if not ok:
        raise RuntimeError(f"could not encode {ext}")
    return buf.tobytes()


def make_image(bank, stratum, seed, index, elongated):
    """(files {kind: (ext, bytes)}, manifest entry) for one image, retrying until it agrees."""
    k, objects, relation = stratum
    for attempt in range(MAX_ATTEMPTS):
        rng = np.random.default_rng([seed, index, attempt])
        if objects == "photo":
            photo, mask, key = bank.photo(int(rng.integers(len(bank.single))))
            ids = (mask >= 128).astype(np.uint8)
            files = {"image": (".png", encode(".png", photo[..., ::-1])), "labels": (".png", encode(".png", ids)),
                     "mask": (".png", encode(".png", mask))}
            return files, {"seed": [seed, index, attempt], "size": list(ids.shape), "jpeg_quality": None,
                           "sources": {"photo": key}, "areas": [int(ids.sum())], "pairs": []}
        H, W = CANVASES[int(rng.integers(len(CANVASES)))]
        same = objects == "same"
        fgs = [int(v) for v in rng.choice(len(bank.fg), size=1 if same or k == 1 else k, replace=False)]
        if relation == "split":
            fgs[0] = int(elongated[rng.integers(len(elongated))])
            if fgs[1] == fgs[0]:
                continue
        spec = {"count": k, "same": same, "foregrounds": fgs, "relations": [relation] * (k - 1)}
        c = compose(rng, bank, spec, H, W, EVAL_PARAMS)
        pairs = pair_relations(c.ids, c.amodal)
        if not agrees(stratum, c, pairs):
            continue
        img = degrade(rng, c.image, EVAL_DEGRADATION)
        quality = int(rng.integers(JPEG_QUALITY[0], JPEG_QUALITY[1] + 1))
        files = {"image": (".jpg", encode(".jpg", img[..., ::-1], cv2.IMWRITE_JPEG_QUALITY, quality)),
                 "labels": (".png", encode(".png", c.ids)),
                 "mask": (".png", encode(".png", np.clip(c.union * 255 + 0.5, 0, 255).astype(np.uint8)))}
        areas = np.bincount(c.ids.ravel(), minlength=k + 1)[1:].tolist()
        return files, {"seed": [seed, index, attempt], "size": [H, W], "jpeg_quality": quality,
                       "sources": {"background": c.keys[0], "objects": c.keys[1:]}, "areas": areas,
                       "pairs": [[i, j, rel, adj] for i, j, rel, adj in pairs]}
    raise RuntimeError(f"image {index} ({stratum}): no composite agreed with its stratum in {MAX_ATTEMPTS} attempts")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--set", choices=sorted(SETS), default="eval")
    ap.add_argument("--seed", type=int, help="default: 39 for eval, 3900 for tune, 3940 for fit")
    ap.add_argument("--out", help="default Tools/instances/.work/<set>")
    a = ap.parse_args()
    cv2.setNumThreads(1)
    split, seed, *_ = SETS[a.set]
    seed = SETS[a.set][1] if a.seed is None else a.seed
    out = Path(a.out) if a.out else HERE / ".work" / a.set
    t = time.time()
    bank = SourceBank((split,), exclude_foregrounds=excluded_foregrounds() if a.set == "eval" else ())
    elongated = np.nonzero((bank.fg[:, 6] >= 2.0) & (bank.fg[:, 5] < 0))[0]
    if a.set == "fit":  # keep the tuning photos unseen by the fit
        # imported here: predict brings in torch, which only the fit set needs
        from liftpy.instances.eval_instances import read_set
        from liftpy.instances.predict import TUNE_PHOTOS, tune_photos
        tune_items = read_set(HERE / ".work" / "tune")
        taken = {e["sources"]["photo"] for e, _, _ in tune_items if e["stratum"]["objects"] == "photo"}
        taken |= {key for key, _, _ in tune_photos(TUNE_PHOTOS, tune_items)}
        bank.single = np.array([i for i in bank.single if bank.keys[i] not in taken], np.int64)
    print(f"{bank.summary()}; {len(elongated)} elongated")
    for kind in ("images", "labels", "masks"):
        (out / kind).mkdir(parents=True, exist_ok=True)
    entries = []
    for index, stratum in enumerate(strata(a.set)):
        files, entry = make_image(bank, stratum, seed, index, elongated)
        name = f"{index:04d}"
        entry = {"name": name, "stratum": {"count": stratum[0], "objects": stratum[1], "relation": stratum[2]}} | entry
        entry["files"], entry["sha256"] = {}, {}
        for kind, (ext, data) in files.items():
            rel = f"{kind}s/{name}{ext}" if kind != "labels" else f"labels/{name}{ext}"
            (out / rel).write_bytes(data)
            entry["files"][kind] = rel
            entry["sha256"][kind] = hashlib.sha256(data).hexdigest()
        entries.append(entry)
        if (index + 1) % 100 == 0:
            print(f"  {index + 1} images, {time.time() - t:.0f} s")
    manifest = {"set": a.set, "seed": seed, "duts_split": split, "generator": "Tools/instances/make_eval_set.py",
                "label_format": "8-bit PNG, 0 background, 1..K in paste order (later pastes cover earlier ones)",
                "relation_radius_px": 2, "images": entries}
    data = (json.dumps(manifest, indent=1, sort_keys=True) + "\n").encode()
    (out / "manifest.json").write_bytes(data)
    print(f"{len(entries)} images in {out} ({time.time() - t:.0f} s); manifest sha256 {hashlib.sha256(data).hexdigest()}")


if __name__ == "__main__":
    main()
