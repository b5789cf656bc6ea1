"""The training recipe both trainers share (Tools/training/train_subject.py on this machine's CPU,
Tools/training/train_subject_gpu.py on a lent GPU): the loss, the learning-rate schedule, the EMA of the
weights, the weight-decay groups, and making an exported (BN-folded) file trainable again; the
instance heads' targets and loss. Needs torch, numpy and OpenCV, not py_sod_metrics, so it runs on
a lent GPU machine as well."""
from __future__ import annotations

import copy
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

from liftpy.instances.centres import centres_of_mass, poles


def edge_emphasis(t, edge_weight):
    """Per-pixel weight 1 + edge_weight * |local mean of t - t| (F3Net's structure-loss weight): up
    to 1 + edge_weight on the outline, 1 far from it. The window is ~9 % of the map's height (31 px
    at F3Net's 352), odd, so side outputs get a window of the same share."""
    k = max(3, int(round(0.088 * t.shape[-2])) | 1)
    # The k x k window mean over the pixels inside the map, one axis at a time (the same numbers as
    # one 2-D pool without padding counted, at 2k instead of k² additions per pixel).
    local = F.avg_pool2d(t, (k, 1), stride=1, padding=(k // 2, 0), count_include_pad=False)
    local = F.avg_pool2d(local, (1, k), stride=1, padding=(0, k // 2), count_include_pad=False)
    return 1 + edge_weight * (local - t).abs()


def loss_fn(outputs, target, bg_weight=1.0, edge_weight=0.0):
    """Sum over outputs (final weight 1, sides 0.5) of BCE + soft IoU, per image averaged; side
    outputs are scored against the target area-downsampled to their size. `bg_weight` scales the
    BCE of background pixels (weight bg_weight * (1 - t) + t), so > 1 costs false foreground more.
    `edge_weight` > 0 weights both terms by `edge_emphasis` (BCE normalised by the weights' mean,
    so its scale stays that of the plain loss); 0 is the plain loss."""
    total = 0.0
    for i, logits in enumerate(outputs):
        t = target
        if logits.shape[-2:] != target.shape[-2:]:
            t = F.interpolate(target, size=logits.shape[-2:], mode="area")
        weight = None if bg_weight == 1.0 else bg_weight * (1 - t) + t
        p = torch.sigmoid(logits)
        if edge_weight:
            e = edge_emphasis(t, edge_weight)
            per_pixel = F.binary_cross_entropy_with_logits(logits, t, weight=weight, reduction="none")
            bce = ((per_pixel * e).sum(dim=(1, 2, 3)) / e.sum(dim=(1, 2, 3))).mean()
        else:
            e = 1.0
            bce = F.binary_cross_entropy_with_logits(logits, t, weight=weight)
        inter = (p * t * e).sum(dim=(1, 2, 3))
        union = ((p + t - p * t) * e).sum(dim=(1, 2, 3))
        iou = (1 - (inter + 1) / (union + 1)).mean()
        total = total + (1.0 if i == 0 else 0.5) * (bce + iou)
    return total


def instance_targets(ids, boundary, stride=4, sigma=4.0, peaks=False, centre="mass", affinity=None):
    """Panoptic-DeepLab targets at the instance heads' stride (subject_model.InstanceHeads), made
    from full-resolution instance ids (N, H, W) (0 background, 1..K; Tools/instances/synth.py's
    `ids`) and its touching-boundary map (N, H, W) (`boundary`, r = 2 px at H). Cell (i, j) of
    the /stride grid stands for input pixel (stride * i + (stride - 1) / 2, ...), where bilinear
    upsampling (align_corners=False) puts it. Returns NCHW float tensors at H / stride:
      centre    max over instances of a Gaussian (`sigma` input pixels, as synth.py's own target)
                at the centre of mass (mean pixel index) of the instance's visible full-resolution pixels
                (`centre` "mass", Panoptic-DeepLab's) or at its innermost pixel ("pole", `poles`)
      offset    (dy, dx) = that centre - the cell's input position, in input pixels, on cells whose
                id (the full-resolution pixel nearest the cell's centre) is an instance; 0 elsewhere
      weight    1 on those instance cells, 0 elsewhere (where the offset loss counts)
      boundary  1 where any of the cell's stride x stride pixels is boundary
    With `peaks` (CenterNet's focal loss, `centre_focal_loss`) the centre map's cell nearest each
    instance's centre is set to exactly 1 (the Gaussian's own maximum on the grid is below 1 unless
    the centre falls on a cell's position; every other cell stays below 1, >= 2 px from the centre),
    and `peak` (NCHW, 1 on those cells) is returned too: one cell per instance, fewer only where two
    instances' centres share their nearest cell. With `affinity` ((dy, dx) cell offsets,
    InstanceHeads.AFFINITY_OFFSETS) also `affinity_targets`' `affinity` and `affinity_weight`."""
    n, h, w = ids.shape
    ids = ids.long()
    k = int(ids.max()) + 1
    mass, cy, cx = centres_of_mass(ids, k)
    if centre == "pole":
        cy, cx = poles(ids, cy, cx)
    elif centre != "mass":
        raise ValueError(f"centre target {centre!r} is not 'mass' or 'pole'")
    hs, ws = h // stride, w // stride
    gy = (torch.arange(hs, dtype=torch.float32) * stride + (stride - 1) / 2).view(1, 1, hs, 1)
    gx = (torch.arange(ws, dtype=torch.float32) * stride + (stride - 1) / 2).view(1, 1, 1, ws)
    present = (mass[:, 1:] > 0).view(n, k - 1, 1, 1)
    d2 = (gy - cy[:, 1:].view(n, k - 1, 1, 1)) ** 2 + (gx - cx[:, 1:].view(n, k - 1, 1, 1)) ** 2
    gauss = torch.exp(-d2 / (2 * sigma * sigma)) * present
    centre = gauss.amax(dim=1, keepdim=True) if k > 1 else torch.zeros(n, 1, hs, ws)
    cell_ids = ids[:, stride // 2::stride, stride // 2::stride][:, :hs, :ws]
    weight = (cell_ids > 0).float().unsqueeze(1)
    dy = torch.gather(cy, 1, cell_ids.reshape(n, -1)).view(n, 1, hs, ws) - gy
    dx = torch.gather(cx, 1, cell_ids.reshape(n, -1)).view(n, 1, hs, ws) - gx
    offset = torch.cat([dy, dx], dim=1) * weight
    bound = F.max_pool2d(boundary.float().unsqueeze(1), stride)
    out = {"centre": centre, "offset": offset, "weight": weight, "boundary": bound}
    if affinity:
        out["affinity"], out["affinity_weight"] = affinity_targets(cell_ids, affinity)
    if peaks:
        # the nearest cell: position stride * i + (stride - 1) / 2 closest to the centre
        iy = ((cy[:, 1:] - (stride - 1) / 2) / stride).round().clamp(0, hs - 1).long()
        ix = ((cx[:, 1:] - (stride - 1) / 2) / stride).round().clamp(0, ws - 1).long()
        b, j = torch.nonzero(present.view(n, k - 1), as_tuple=True)  # (sample, instance - 1) of each present one
        peak = torch.zeros(n, 1, hs, ws)
        peak[b, 0, iy[b, j], ix[b, j]] = 1.0
        out["centre"] = torch.maximum(centre, peak)
        out["peak"] = peak
    return out


def affinity_targets(cell_ids, offsets):
    """Pair targets on the /stride grid's cell ids (N, hs, ws) (0 background): for each (dy, dx) of
    `offsets` a channel whose cell (i, j) is 1 when it and cell (i + dy, j + dx) are the same
    instance, 0 when they are two instances; weighted 1 only where both cells are instances (a pair
    off the grid or touching the background counts in no loss). Returns (target, weight), each
    (N, len(offsets), hs, ws) float."""
    n, hs, ws = cell_ids.shape
    target = torch.zeros(n, len(offsets), hs, ws)
    weight = torch.zeros(n, len(offsets), hs, ws)
    for c, (dy, dx) in enumerate(offsets):
        a, b = cell_ids[:, :hs - dy, :ws - dx], cell_ids[:, dy:, dx:]
        both = (a > 0) & (b > 0)
        target[:, c, :hs - dy, :ws - dx] = ((a == b) & both).float()
        weight[:, c, :hs - dy, :ws - dx] = both.float()
    return target, weight


def affinity_loss(logits, target, weight):
    """BCE of affinity logits against `affinity_targets`, the two classes balanced: the mean over
    weighted same-instance pairs and the mean over weighted two-instance pairs, averaged (the first
    alone when a batch has no two-instance pair), so the rare seams count as much as object
    interiors."""
    bce = F.binary_cross_entropy_with_logits(logits, target, reduction="none") * weight
    pos, neg = weight * target, weight * (1 - target)
    mean_pos = (bce * target).sum() / pos.sum().clamp_min(1)
    if neg.sum() == 0:
        return mean_pos
    return (mean_pos + (bce * (1 - target)).sum() / neg.sum()) / 2


def background_only(target, photo, margin=1, keep=0.0):
    """`instance_targets`' targets with the untouched photos' objects left out: for samples where
    `photo` (N bools) is true, the cells of the object and `margin` cells around it are ignored by
    the centre and boundary terms (an `ignore` map, 1 there), their centre peaks removed and their
    offsets unweighted, so that such a photo teaches only "no centre on the background" and never
    that its one ground-truth region is one object (it may be several that touch). `keep` in (0, 1]
    (the trainer's `photo_weight`) keeps their targets at that weight instead: the ignore map is
    1 - keep there, the peak and offset weights keep, so the photo still says "one object", softly.
    Returns a new dict."""
    out = dict(target)
    sel = torch.as_tensor(photo, dtype=torch.bool).view(-1, 1, 1, 1)
    scale = (~sel).float() + sel.float() * keep  # 1 for the other samples, keep for these photos
    region = F.max_pool2d(target["weight"], 2 * margin + 1, stride=1, padding=margin)
    out["ignore"] = region * sel * (1 - keep)
    out["weight"] = target["weight"] * scale
    out["offset"] = target["offset"] * (scale > 0)
    if "peak" in target:
        out["peak"] = target["peak"] * scale
        out["centre"] = target["centre"] * (scale > 0)
    if "affinity_weight" in target:
        out["affinity_weight"] = target["affinity_weight"] * scale
    return out


def centre_focal_loss(logits, target, peak, alpha=2.0, beta=4.0, eps=1e-4, ignore=None):
    """CenterNet's penalty-reduced pixel-wise focal loss (Zhou et al. 2019, eq. 1) of centre-heatmap
    logits against `instance_targets(..., peaks=True)`'s `centre` (a Gaussian per instance whose
    peak cell is exactly 1) and `peak` (those cells): with p = sigmoid clamped to [eps, 1 - eps],
    -(1 - p)^alpha log p on peak cells, -(1 - y)^beta p^alpha log(1 - p) elsewhere, summed over
    the batch and divided by the number of peak cells (instance centres; at least 1); cells where
    `ignore` is 1 (`background_only`) count in neither."""
    p = torch.sigmoid(logits).clamp(eps, 1 - eps)
    pos = -(torch.log(p) * (1 - p).pow(alpha) * peak).sum()
    keep = (1 - peak) if ignore is None else (1 - peak) * (1 - ignore)
    neg = -(torch.log(1 - p) * p.pow(alpha) * (1 - target).pow(beta) * keep).sum()
    return (pos + neg) / peak.sum().clamp_min(1)


def instance_loss(pred, target, centre_weight=200.0, offset_weight=0.01, boundary_weight=1.0, centre_loss="mse",
                  affinity_weight=1.0):
    """Panoptic-DeepLab's losses on the instance heads' outputs (subject_model.InstanceHeads) against
    `instance_targets`: MSE of the sigmoid centre heatmap over all cells x `centre_weight`, L1 of
    the offsets in input pixels (|dy| + |dx|) averaged over instance cells x `offset_weight`, and
    BCE of the boundary map (when the heads have one) x `boundary_weight`, and `affinity_loss` (when
    the heads have affinities; targets made with `affinity`) x `affinity_weight`. Returns (total, {name:
    unweighted term}). `centre_loss` "focal": the centre term is `centre_focal_loss` (targets made
    with peaks=True), named `centre_focal`, and `centre_at_peaks` (not in the total) is the mean
    predicted probability on the peak cells."""
    if centre_loss == "focal":
        terms = {"centre_focal": centre_focal_loss(pred["centre"], target["centre"], target["peak"],
                                                   ignore=target.get("ignore"))}
    elif "ignore" in target:
        raise ValueError("background_only targets need the focal centre loss")
    elif centre_loss == "mse":
        terms = {"centre": F.mse_loss(torch.sigmoid(pred["centre"]), target["centre"])}
    else:
        raise ValueError(f"centre_loss {centre_loss!r}: mse or focal")
    wsum = target["weight"].sum()
    terms["offset"] = ((pred["offset"] - target["offset"]).abs() * target["weight"]).sum() / wsum.clamp_min(1)
    weights = {("centre_focal" if centre_loss == "focal" else "centre"): centre_weight, "offset": offset_weight}
    if "boundary" in pred:
        if "ignore" in target:
            keep = 1 - target["ignore"]
            terms["boundary"] = (F.binary_cross_entropy_with_logits(pred["boundary"], target["boundary"], reduction="none")
                                 * keep).sum() / keep.sum().clamp_min(1)
        else:
            terms["boundary"] = F.binary_cross_entropy_with_logits(pred["boundary"], target["boundary"])
        weights["boundary"] = boundary_weight
    if "affinity" in pred:
        terms["affinity"] = affinity_loss(pred["affinity"], target["affinity"], target["affinity_weight"])
        weights["affinity"] = affinity_weight
    total = sum(weights[n] * t for n, t in terms.items())
    logged = {n: float(t.detach()) for n, t in terms.items()}
    if centre_loss == "focal":
        with torch.no_grad():
            at = (torch.sigmoid(pred["centre"]) * target["peak"]).sum() / target["peak"].sum().clamp_min(1)
        logged["centre_at_peaks"] = float(at)
    return total, logged


def sample_weighted_loss(loss_of, outputs, target, weights):
    """`loss_of(outputs, target)` (`loss_fn`: a mean over images of per-image terms) with image i
    weighted by weights[i]: sum over the distinct weights w of w * (images with w / all images) x
    the loss on those images, so all-ones weights give the plain loss (to float rounding) and an
    image of weight 0 is left out; the other images keep their share of the batch. `outputs`: a
    list of (N, ...) tensors, `target` (N, ...), `weights` a length-N sequence of floats."""
    n = len(weights)
    total = 0.0
    for w in sorted(set(float(v) for v in weights)):
        if w == 0:
            continue
        idx = torch.tensor([i for i, v in enumerate(weights) if float(v) == w])
        part = loss_of([o[idx] for o in outputs], target[idx])
        total = total + (w * len(idx) / n) * part
    return total


def lr_at(step, base, warmup, total, floor=0.01):
    """Learning rate at `step`: linear warm-up to `base` over `warmup` steps, then one cosine
    decay to `floor * base` at step `total`."""
    if step < warmup:
        return base * (step + 1) / warmup
    t = min(1.0, (step - warmup) / max(1, total - warmup))
    return base * (floor + (1 - floor) * 0.5 * (1 + math.cos(math.pi * t)))


class EMA:
    """Exponential moving average of parameters and of BatchNorm running statistics (so the
    statistics match the averaged weights, as timm's ModelEmaV2 does). With `ramp` (a run from
    random weights) the decay ramps up early, (1 + step) / (10 + step), so that the average forgets
    the initialisation; a run from trained weights wants the full decay at once, since the ramp would
    drop those weights within ten steps and still average only ~190 steps at step 1700.
    `ramp_prefix` ramps only the tensors whose names start with it (fresh instance heads on a
    trained network: with the full decay 0.999 their average still held 25 % of the random
    initialisation after 1,365 steps, and its centre map was flat)."""

    def __init__(self, model, decay, ramp=True, ramp_prefix=None):
        self.model = copy.deepcopy(model)
        self.model.eval()
        self.decay = decay
        for p in self.model.parameters():
            p.requires_grad_(False)
        # whether each parameter, then each buffer, ramps (by name: the tensors themselves are
        # looked up at each update, since moving a module to a device replaces its buffers)
        names = [n for n, _ in self.model.named_parameters()] + [n for n, _ in self.model.named_buffers()]
        self.ramps = [ramp if ramp_prefix is None else n.startswith(ramp_prefix) for n in names]

    @torch.no_grad()
    def update(self, model, step):
        ramped = min(self.decay, (1 + step) / (10 + step))
        tensors = zip(list(self.model.parameters()) + list(self.model.buffers()),
                      list(model.parameters()) + list(model.buffers()), self.ramps)
        groups = {True: ([], []), False: ([], [])}  # ramps -> (EMA tensors, live tensors)
        for e, live, ramps in tensors:
            # frozen parameters are copied: lerp averages -0.0 with itself to +0.0
            frozen = isinstance(live, nn.Parameter) and not live.requires_grad
            if e.is_floating_point() and not frozen:
                groups[ramps][0].append(e)
                groups[ramps][1].append(live.detach())
            else:
                e.copy_(live)
        for ramps, (es, lives) in groups.items():
            if es:  # one fused call per group: on a GPU each separate lerp is a kernel launch
                torch._foreach_lerp_(es, lives, 1 - (ramped if ramps else self.decay))


def param_groups(model, wd, encoder_lr_scale=1.0, instance_lr_scale=1.0):
    """AdamW groups: weight decay `wd` on convolution kernels only (not on biases or BN affines).
    With `encoder_lr_scale` != 1 the encoder's parameters form their own groups whose `lr_scale`
    (which the trainers multiply the schedule's rate by) is that factor: a pretrained encoder learns
    slower than a new decoder. `instance_lr_scale` does the same for the instance heads
    (`instance.*`): fresh heads on trained weights may learn faster than the rest."""
    groups = {}
    for name, p in model.named_parameters():
        scale = (encoder_lr_scale if name.startswith("encoder.") else
                 instance_lr_scale if name.startswith("instance.") else 1.0)
        groups.setdefault((scale, p.ndim == 4), []).append(p)
    return [{"params": ps, "weight_decay": wd if kernel else 0.0, "lr_scale": scale}
            for (scale, kernel), ps in sorted(groups.items(), key=lambda kv: (-kv[0][0], not kv[0][1]))]


@torch.no_grad()
def reexpress_batchnorms(bns, run, inputs):
    """Makes the identity BatchNorms of an exported file (export_subject.load_exported_weights)
    trainable without changing what they compute in eval mode: runs `run(x)` for each x of `inputs`
    (eval mode), measures each BN input's per-channel mean m and variance v, and sets running
    statistics (m, v), scale sqrt(v + eps), shift += m, so that in train mode the batch statistics
    cancel."""
    if any(bn.running_mean.abs().max() > 0 or (bn.weight != 1).any() for bn in bns):
        raise ValueError("reexpress_batchnorms expects the identity BatchNorms of load_exported_weights")
    sums = {}

    def measure(bn, inputs):
        x = inputs[0].detach().double()
        n, s1, s2 = sums.get(bn, (0, 0.0, 0.0))
        sums[bn] = (n + x.numel() // x.shape[1], s1 + x.sum((0, 2, 3)), s2 + (x * x).sum((0, 2, 3)))

    hooks = [bn.register_forward_pre_hook(measure) for bn in bns]
    try:
        for x in inputs:
            run(x)
    finally:
        for h in hooks:
            h.remove()
    for bn in bns:
        n, s1, s2 = sums[bn]
        mean = s1 / n
        var = (s2 / n - mean * mean).clamp_min(0)
        bn.running_mean.copy_(mean)
        bn.running_var.copy_(var)
        bn.weight.copy_(torch.sqrt(var + bn.eps))
        bn.bias.add_(mean)


def calibrate_from_export(model, batches, loss_of, log, stat_batches=24, head_steps=120,
                          head_lr=1e-2):
    """Makes a model loaded from an exported file (export_subject.load_exported_weights) trainable
    without changing what it computes. The file has BatchNorm folded into the convolutions, so each
    BN is an identity in eval mode that batch statistics would break in train mode: each is
    re-expressed (`reexpress_batchnorms`) from `stat_batches` training batches. The file also lacks the
    training-only side heads: fit them alone (the rest frozen, BN in eval mode) for `head_steps`.
    `batches` yields (photos, masks) NCHW tensors on the model's device; `loss_of(outputs, masks)`."""
    bns = [m for m in model.modules() if isinstance(m, nn.BatchNorm2d)]
    model.eval()
    probe = next(batches)[0]
    with torch.no_grad():
        before = model(probe)
    reexpress_batchnorms(bns, model, (next(batches)[0] for _ in range(stat_batches)))
    with torch.no_grad():
        eval_delta = (model(probe) - before).abs().max().item()
        model.train()
        train_delta = (torch.sigmoid(model(probe)[0]) - torch.sigmoid(before)).abs().mean().item()
    log(f"init: {len(bns)} BatchNorms re-expressed from {stat_batches} batches; eval logits max |delta| "
        f"{eval_delta:.1e}, train-mode probability mean |delta| {train_delta:.4f}")

    heads = [model.context_side, model.dec16.side, model.dec8.side, model.dec4.side]
    params = [p for h in heads for p in h.parameters()]
    for p in model.parameters():
        p.requires_grad_(False)
    for p in params:
        p.requires_grad_(True)
    for bn in bns:
        bn.eval()
    opt = torch.optim.Adam(params, lr=head_lr)
    for step in range(head_steps):
        x, y = next(batches)
        loss = loss_of(model(x)[1:], y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        if step == 0 or step == head_steps - 1:
            log(f"init: side heads step {step + 1}/{head_steps} side loss {loss.item():.4f}")
    for p in model.parameters():
        p.requires_grad_(True)
    model.train()
