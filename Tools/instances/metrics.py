"""Instance metrics for one class of "thing" (subjects), from label maps (0 = background, 1.. = instances).

Definitions (used by eval_instances.py; Tools/instances/README.md repeats them):
  meaningful segment  a predicted instance of at least MEANINGFUL (0.5 %) of the image's pixels;
                      smaller ones are ignored everywhere (neither matched nor false positives nor
                      counted): specks are not instances a user would tap
  match               a ground-truth instance and a meaningful predicted segment with IoU > 0.5
                      (unique by construction: two segments cannot both cover over half of one
                      instance's union, Kirillov et al., "Panoptic Segmentation", 2019)
  PQ, SQ, RQ          over a set of images: PQ = sum of matched IoUs / (TP + FP/2 + FN/2),
                      SQ = sum of matched IoUs / TP, RQ = TP / (TP + FP/2 + FN/2) (PQ = SQ x RQ)
  split rate          over the ground-truth pairs whose visible regions come within 2 px
                      (touching or overlapping, from the set's manifest): the share whose two
                      instances are both matched (hence to two different segments);
                      `split_loose`: the share whose instances' dominant segments (the meaningful
                      segment covering most of each) exist and differ, a lenient variant
  count accuracy      share of images whose number of meaningful segments equals the number of
                      ground-truth instances
  over-split          on a photo whose ground truth is one object: the prediction has >= 2
                      meaningful segments; `oversplit_object`: >= 2 meaningful segments that each lie
                      at least half on the ground-truth object (the object itself cut apart, not a
                      false detection elsewhere)
"""
from __future__ import annotations

import numpy as np

MEANINGFUL = 0.005


def meaningful(pred: np.ndarray):
    """Ids and areas of the meaningful segments of a label map."""
    areas = np.bincount(pred.ravel().astype(np.int64))
    ids = np.nonzero(areas >= MEANINGFUL * pred.size)[0]
    ids = ids[ids > 0]
    return ids, areas[ids]


def score_image(gt: np.ndarray, pred: np.ndarray, pairs=()) -> dict:
    """Per-image counts for PQ, the split rate (pairs: (i, j) ground-truth ids that touch) and the
    count accuracy. gt, pred: integer label maps of one shape."""
    if gt.shape != pred.shape:
        raise ValueError(f"prediction {pred.shape} and ground truth {gt.shape} differ in size")
    gt = gt.astype(np.int64)
    pred = pred.astype(np.int64)
    n_gt, n_pred = int(gt.max()) + 1, int(pred.max()) + 1
    inter = np.bincount(gt.ravel() * n_pred + pred.ravel(), minlength=n_gt * n_pred).reshape(n_gt, n_pred)
    gt_area, pred_area = inter.sum(axis=1), inter.sum(axis=0)
    seg_ids, _ = meaningful(pred)
    gt_ids = np.nonzero(gt_area[1:])[0] + 1
    matched_gt, matched_pred, iou_sum = {}, set(), 0.0
    for g in gt_ids:
        for p in seg_ids:
            i = inter[g, p]
            if i == 0:
                continue
            iou = i / (gt_area[g] + pred_area[p] - i)
            if iou > 0.5:
                matched_gt[int(g)] = int(p)
                matched_pred.add(int(p))
                iou_sum += iou
    dominant = {}
    for g in gt_ids:
        cover = inter[g, seg_ids] if len(seg_ids) else np.zeros(0)
        dominant[int(g)] = int(seg_ids[int(cover.argmax())]) if len(cover) and cover.max() > 0 else None
    split = sum(1 for i, j in pairs if i in matched_gt and j in matched_gt)
    loose = sum(1 for i, j in pairs if dominant.get(i) is not None and dominant.get(j) is not None
                and dominant[i] != dominant[j])
    tp = len(matched_gt)
    return {"tp": tp, "fp": len(seg_ids) - len(matched_pred), "fn": len(gt_ids) - tp, "iou_sum": iou_sum,
            "pairs": len(pairs), "split": split, "split_loose": loose,
            "count_ok": int(len(seg_ids) == len(gt_ids)), "n_pred": int(len(seg_ids)), "n_gt": int(len(gt_ids))}


def summarise(records) -> dict:
    """PQ / SQ / RQ, split rates and count accuracy over per-image records of score_image."""
    tp = sum(r["tp"] for r in records)
    fp = sum(r["fp"] for r in records)
    fn = sum(r["fn"] for r in records)
    iou = sum(r["iou_sum"] for r in records)
    pairs = sum(r["pairs"] for r in records)
    denom = tp + fp / 2 + fn / 2
    nan = float("nan")
    return {"images": len(records), "pq": iou / denom if denom else nan, "sq": iou / tp if tp else nan,
            "rq": tp / denom if denom else nan, "pairs": pairs,
            "split": sum(r["split"] for r in records) / pairs if pairs else nan,
            "split_loose": sum(r["split_loose"] for r in records) / pairs if pairs else nan,
            "count_acc": float(np.mean([r["count_ok"] for r in records])) if records else nan,
            "tp": tp, "fp": fp, "fn": fn}


def object_segments(gt_mask: np.ndarray, pred: np.ndarray) -> tuple[int, int]:
    """(meaningful predicted segments, those with at least half their area on the ground truth
    (bool)) for one photo whose ground truth is one connected region."""
    ids, areas = meaningful(pred)
    if len(ids) == 0:
        return 0, 0
    on_object = np.bincount(pred[gt_mask].ravel().astype(np.int64), minlength=int(pred.max()) + 1)[ids]
    return len(ids), int((on_object >= 0.5 * areas).sum())


def oversplit(gt_mask: np.ndarray, pred: np.ndarray) -> tuple[bool, bool]:
    """(over-split, over-split of the object) for one photo whose ground truth (bool) is one object."""
    segments, on_object = object_segments(gt_mask, pred)
    return segments >= 2, on_object >= 2
