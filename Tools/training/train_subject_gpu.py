"""Trains the subject model on a lent GPU for a fixed wall-clock budget (the `device` tool gives
15 minutes in all, 10 per command), with the recipe of train_subject.py.

The whole pack (Tools/training/pack_duts.py) lives on the GPU and training views are made there
(gpu_augment.py); forward and backward run in bfloat16 autocast (weights, optimiser, EMA and loss
in float32). The schedule is fitted to the budget: after --probe-steps the measured step time
fixes the total number of steps, then warm-up and cosine decay (training_recipe.lr_at) as on the
CPU. No validation runs there (py_sod_metrics is absent): the EMA weights are saved at several
points of the schedule into --out, to be scored here with
`Tools/evaluation/eval_subject.py --checkpoint OUT/snap-100.pt` and fine-tuned or exported like any best.pt.

Outputs (at most 8 files come back from the device): snap-050.pt, snap-075.pt, snap-090.pt,
snap-100.pt (EMA weights at that % of the schedule), raw-100.pt (the raw weights at the end), and
gpu-train.json (settings, speed, loss curve).

On the device (see Tools/training/README.md, "On a lent GPU"):
  python3 -m liftpy.training.train_subject_gpu --pack Tools/.pack --init Tools/.pack/part-2/init.pt --minutes 7 --out $OUT
Smoke test here (CPU, a few steps):
  .venv/bin/python -m liftpy.training.train_subject_gpu --pack Tools/.pack/test --device cpu --batch 4 --minutes 0.5
"""
from __future__ import annotations

import argparse
import itertools
import json
import time
from pathlib import Path

import torch

from liftpy.model_files import load_exported
from liftpy.subject_model import SubjectNet, grow, variant_of
from liftpy.training.gpu_augment import augment_batch, object_boxes
from liftpy.training.pack_duts import load_pack
from liftpy.training.training_recipe import EMA, calibrate_from_export, loss_fn, lr_at, param_groups

SNAPSHOTS = (0.5, 0.75, 0.9, 1.0)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pack", nargs="+", required=True, help="pack root(s) or part folder(s)")
    ap.add_argument("--init", help="starting weights: a .pt with an 'ema' state dict (init.pt, best.pt), or "
                                   "an exported .safetensors (Weights/subject.safetensors, made trainable here)")
    ap.add_argument("--variant", help="network size; default the --init weights' (grown if larger)")
    ap.add_argument("--out", default="gpu-out")
    ap.add_argument("--device", default="cuda")
    ap.add_argument("--minutes", type=float, default=7.0, help="wall-clock budget for the training steps")
    ap.add_argument("--size", type=int, default=256)
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--wd", type=float, default=0.01)
    ap.add_argument("--warmup", type=float, default=0.03, help="share of the steps spent warming up")
    ap.add_argument("--ema", type=float, default=0.9995)
    ap.add_argument("--zoom-out-p", type=float, default=0.5)
    ap.add_argument("--zoom-canvas", choices=("reflect", "replicate"), default="replicate")
    ap.add_argument("--crop-area", type=float, nargs=2, default=(0.8, 1.0), metavar=("LO", "HI"),
                    help="random resized crop: share of the photo's area kept")
    ap.add_argument("--zoom-in-p", type=float, default=0.0, help="share of views zoomed in on the object")
    ap.add_argument("--zoom-in-area", type=float, nargs=2, default=(0.3, 0.6), metavar=("LO", "HI"))
    ap.add_argument("--paste-p", type=float, default=0.0, help="share of views with another pair's object pasted in")
    ap.add_argument("--paste-scale", type=float, nargs=2, default=(0.4, 0.9), metavar=("LO", "HI"))
    ap.add_argument("--encoder-lr-scale", type=float, default=1.0,
                    help="the encoder's learning rate as a share of the rest's (train_subject.py's flag)")
    ap.add_argument("--snapshots", type=float, nargs="+", default=SNAPSHOTS,
                    help="shares of the schedule at which the EMA weights are saved")
    ap.add_argument("--no-raw", action="store_true", help="do not save the raw end weights")
    ap.add_argument("--bg-weight", type=float, default=2.0)
    ap.add_argument("--edge-weight", type=float, default=0.0, help="outline emphasis of the loss (0 = plain)")
    ap.add_argument("--probe-steps", type=int, default=40)
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    t_begin = time.time()
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    dev = torch.device(a.device)
    cuda = dev.type == "cuda"
    if cuda:
        torch.backends.cudnn.benchmark = True
        torch.backends.cuda.matmul.allow_tf32 = True
        torch.backends.cudnn.allow_tf32 = True

    def log(msg):
        print(f"{time.time() - t_begin:7.1f} s  {msg}", flush=True)

    photos, masks, shapes, keys = load_pack(a.pack)
    log(f"pack: {len(keys)} pairs in {photos.shape[1]}^2 slots ({photos.nbytes / 2**30:.2f} GiB)")
    photos = torch.from_numpy(photos).to(dev)
    masks = torch.from_numpy(masks).to(dev)
    shapes_t = torch.from_numpy(shapes).to(dev)
    boxes = object_boxes(masks, shapes_t)

    def views(n):
        """A batch of n training views (photos, masks) on the device."""
        idx = torch.randint(0, len(keys), (n,), device=dev, generator=gen)
        return augment_batch(photos, masks, shapes_t, idx, a.size, gen, zoom_out_p=a.zoom_out_p,
                             zoom_canvas=a.zoom_canvas, scale=tuple(a.crop_area), boxes=boxes,
                             zoom_in_p=a.zoom_in_p, zoom_in=tuple(a.zoom_in_area), paste_p=a.paste_p,
                             paste_scale=tuple(a.paste_scale))

    gen = torch.Generator(device=dev)
    gen.manual_seed(a.seed)
    if a.init and a.init.endswith(".safetensors"):
        # the foreground network only: this trainer has no instance heads, and the calibration
        # measures what the foreground's forward pass runs
        model = load_exported(a.init, heads=False).to(dev, memory_format=torch.channels_last)
        calibrate_from_export(model, (views(a.batch) for _ in itertools.count()),
                              lambda outputs, t: loss_fn(outputs, t, a.bg_weight, a.edge_weight), log)
        if a.variant and a.variant != model.variant:
            model = grow(model.cpu(), a.variant)
    elif a.init:
        ckpt = torch.load(a.init, map_location="cpu", weights_only=False)
        weights = {k: v.float() if v.is_floating_point() else v for k, v in ckpt["ema"].items()}
        model = SubjectNet(variant_of(weights))
        model.load_state_dict(weights)
        if a.variant and a.variant != model.variant:
            model = grow(model, a.variant)
    else:
        model = SubjectNet(a.variant or "l")
    model = model.to(dev, memory_format=torch.channels_last).train()
    ema = EMA(model, a.ema, ramp=not a.init)
    opt = torch.optim.AdamW(param_groups(model, a.wd, a.encoder_lr_scale), lr=a.lr, betas=(0.9, 0.999), fused=cuda)
    log(f"model {model.variant}, init {a.init}, batch {a.batch} at {a.size}^2, peak lr {a.lr}")

    def train_step(step, lr):
        for g in opt.param_groups:
            g["lr"] = lr * g.get("lr_scale", 1.0)
        x, y = views(a.batch)
        with torch.autocast(dev.type, dtype=torch.bfloat16):
            outputs = model(x)
        loss = loss_fn([o.float() for o in outputs], y, a.bg_weight, a.edge_weight)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        ema.update(model, step)
        return loss

    def sync():
        if cuda:
            torch.cuda.synchronize()

    # Probe: the first steps (at a small learning rate, as in warm-up) time a step, which fixes
    # the schedule's length so that it ends inside the budget.
    budget = a.minutes * 60
    t_train = time.time()
    probe_lr = a.lr * 0.01
    for step in range(a.probe_steps):
        if step == a.probe_steps // 2:
            sync()
            t_probe = time.time()
        train_step(step, probe_lr)
    sync()
    per_step = (time.time() - t_probe) / (a.probe_steps - a.probe_steps // 2)
    remaining = budget - (time.time() - t_train)
    total = a.probe_steps + max(1, int(remaining / per_step * 0.95))
    warmup = a.probe_steps + int(a.warmup * total)
    epochs = total * a.batch / len(keys)
    log(f"{per_step * 1e3:.1f} ms/step ({a.batch / per_step:.0f} img/s): {total} steps = {epochs:.1f} epochs")

    record = {"args": vars(a), "pairs": len(keys), "ms_per_step": per_step * 1e3, "total_steps": total,
              "epochs": epochs, "losses": []}

    def snapshot_steps(total):
        return {max(a.probe_steps + 1, int(f * total)): f for f in a.snapshots}

    def save_snapshot(f, done):
        state = {k: v.detach().cpu() for k, v in ema.model.state_dict().items()}
        torch.save({"ema": state, "which": "ema", "step": done, "epoch": done * a.batch / len(keys),
                    "args": vars(a)}, out / f"snap-{round(f * 100):03d}.pt")
        log(f"saved snap-{round(f * 100):03d}.pt")

    # The probe's step time may be off (another job on the GPU still starting, clocks settling): in
    # the schedule's first half, each log point re-fits its length to the pace so far. Past the
    # budget by a minute (the pace fell later), the run stops and saves what the last snapshot
    # would have been.
    snap_steps = snapshot_steps(total)
    loss_sum, n_sum = torch.zeros((), device=dev), 0
    t_loop, step = time.time(), a.probe_steps
    while step < total:
        loss_sum += train_step(step, lr_at(step - a.probe_steps, a.lr, warmup - a.probe_steps,
                                           total - a.probe_steps)).detach()
        n_sum += 1
        step += 1
        done = step
        if done % 200 == 0 or done == total:
            mean = float(loss_sum) / n_sum  # also waits for the GPU, so the clock below is true
            record["losses"].append([done, round(done * a.batch / len(keys), 2), round(mean, 4)])
            log(f"step {done}/{total} epoch {done * a.batch / len(keys):.1f} loss {mean:.4f}")
            loss_sum.zero_()
            n_sum = 0
            pace = (time.time() - t_loop) / (done - a.probe_steps)
            if done < total / 2:
                refit = done + max(1, int((budget - (time.time() - t_train)) / pace * 0.95))
                if abs(refit - total) > 0.02 * total:
                    log(f"pace {pace * 1e3:.1f} ms/step: schedule re-fitted from {total} to {refit} steps")
                    total = refit
                    snap_steps = snapshot_steps(total)
            elif time.time() - t_train > budget + 60:
                log(f"past the budget at step {done} of {total}: stopping")
                save_snapshot(max(a.snapshots), done)
                total = done
                break
        if done in snap_steps:
            save_snapshot(snap_steps[done], done)
    epochs = total * a.batch / len(keys)
    record.update(total_steps=total, epochs=epochs)
    if not a.no_raw:
        raw = {k: v.detach().cpu() for k, v in model.state_dict().items()}
        torch.save({"ema": raw, "which": "model", "step": total, "epoch": epochs, "args": vars(a)},
                   out / "raw-100.pt")
    record["seconds"] = time.time() - t_begin
    (out / "gpu-train.json").write_text(json.dumps(record, indent=1))
    log(f"done: {total} steps, {epochs:.1f} epochs, {time.time() - t_train:.0f} s of training")


if __name__ == "__main__":
    main()
