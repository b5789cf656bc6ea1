"""Trains Lift's subject model (liftpy.subject_model) on DUTS-TR, and optionally its instance heads;
resumable. The run's settings come from a config file (Tools/training/configs/*.toml: one per
shipped run, say the model cards) and `--set NAME=VALUE` overrides; `--list-settings` lists every
setting with its default.

  .venv/bin/python -m liftpy.training.train_subject --config subject-views --set seed=7 --out Tools/checkpoints/NAME
  .venv/bin/python -m liftpy.training.train_subject --resume Tools/checkpoints/NAME/last.pt [--set total_epochs=3]

Recipe (liftpy.training.training_recipe): BCE + soft-IoU loss on the final and every side output;
AdamW; linear warm-up then one iteration-based cosine decay that may span several resumed runs; EMA
of the weights; validation after every epoch (and every `val_every` steps), see validation.py.
A resumed run keeps its checkpoint's settings (except the process's own and the schedule, which
the checkpoint keeps in use) unless the command line's config or `--set` gives them.

Writes to --out (default: the --resume checkpoint's folder, else Tools/checkpoints/<config name>;
ignored by git):
  last.pt        full state (model, EMA, optimiser, step, schedule), every `ckpt_minutes`
  snapshots/     with `snapshot_every` N: step-N.pt, the model's and the EMA's weights every N steps
  best.pt        the weights (model or EMA, whichever scored) with the lowest cut MAE
  log.jsonl      one line per validation; train.log the console log
"""
from __future__ import annotations

import argparse
import os
import signal
import sys
import time
from functools import partial
from pathlib import Path

import torch

from liftpy.duts_data import TrainBatches
from liftpy.repository import REPO, git_commit
from liftpy.subject_model import SubjectNet, count_macs
from liftpy.training.network_start import (fresh_network, freeze_all_but_heads, moving_average, optimiser,
                                           reexpress_loaded_heads, resumed_network, set_train_mode,
                                           teacher_network)
from liftpy.training.run_files import RunFiles
from liftpy.training.schedule import Schedule
from liftpy.training.settings import (Settings, SettingsError, describe, parse_override, read_config,
                                      resolve)
from liftpy.training.step_loss import StepLoss, recipe_loss
from liftpy.training.streams import (StepBatches, calibration_batches, held_out_samples, source_bank,
                                     synthetic_share, synthetic_stream, training_data, validation_sets,
                                     view_settings)
from liftpy.training.validation import foreground_round, heads_round


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--config", help="the run's settings: a .toml file, or a name in Tools/training/configs/")
    ap.add_argument("--set", action="append", default=[], metavar="NAME=VALUE",
                    help="override one setting (TOML value syntax; repeatable)")
    ap.add_argument("--resume", help="a last.pt: continue its model, EMA, optimiser, step and schedule")
    ap.add_argument("--out", help="the run's folder (default: the --resume checkpoint's, else "
                                  "Tools/checkpoints/<config name>)")
    ap.add_argument("--list-settings", action="store_true", help="print every setting with its default and exit")
    a = ap.parse_args()
    if a.list_settings:
        print(describe())
        return
    try:
        config = read_config(a.config) if a.config else {}
        overrides = dict(parse_override(text) for text in a.set)
        checkpoint = torch.load(a.resume, map_location="cpu", weights_only=False) if a.resume else None
        out = a.out or str(Path(a.resume).parent if a.resume else
                           REPO / "Tools/checkpoints" / (Path(a.config).stem if a.config else "subject"))
        s = resolve(config, overrides, out=out, resume=a.resume,
                    resumed_args=checkpoint["args"] if checkpoint else None)
        Trainer(s, checkpoint, stretch="total_epochs" in config | overrides).run()
    except SettingsError as error:
        sys.exit(f"train_subject: {error}")


def pick_threads(s: Settings) -> int:
    """`threads`, or with auto: 2 while the machine is otherwise idle, 1 while other work keeps it busy."""
    if s.run.threads != "auto":
        return int(s.run.threads)
    return 1 if os.getloadavg()[0] > 3.5 else 2


class Trainer:
    """One invocation of a run: the network, its EMA and optimiser, the data and the schedule, set
    up from the settings (and from `checkpoint`, a last.pt, when resuming; `stretch`: the resumed
    schedule takes the length `total_epochs` gives)."""

    def __init__(self, s: Settings, checkpoint: dict | None, stretch: bool):
        self.s = s
        torch.set_num_threads(pick_threads(s))
        self.files = RunFiles(s.out)
        log = self.files.log
        train_pairs, duts_tr = training_data(s)
        self.vals = validation_sets(s)
        steps_per_epoch = len(train_pairs) // s.data.batch
        if checkpoint is not None:
            self.schedule = Schedule.resumed(s, checkpoint, steps_per_epoch, stretch)
            model = resumed_network(checkpoint, s)
        else:
            self.schedule = Schedule.new(s, steps_per_epoch)
            if s.data.seed is None:
                s.data.seed = int.from_bytes(os.urandom(4), "little")
            model = fresh_network(s, lambda: calibration_batches(s, train_pairs), partial(recipe_loss, s), log)
        self.model = model = model.to(memory_format=torch.channels_last)
        self.frozen = frozen = s.instances.freeze_foreground
        teacher = teacher_network(s, log)
        if frozen:
            freeze_all_but_heads(model, s)
        self.ema = moving_average(model, s)
        self.opt = optimiser(model, s, self.schedule.base_lr)
        if checkpoint is not None:
            self.ema.model.load_state_dict(checkpoint["ema"])
            self.opt.load_state_dict(checkpoint["opt"])
        log(f"start: step {self.schedule.start_step}/{self.schedule.total_steps} ({steps_per_epoch} steps/epoch), "
            f"variant {s.start.variant}, {2 * count_macs(SubjectNet(s.start.variant), s.data.size) / 1e9:.3f} GFLOP "
            f"at {s.data.size}{heads_cost(model, s)}, commit {git_commit()}, args {s.args()}")

        n_synth = synthetic_share(s, model.instance is not None)
        start = self.schedule.start_step
        views = None if frozen else iter(TrainBatches(train_pairs, s.data.batch - n_synth, s.data.size,
                                                      seed=s.data.seed + start, **view_settings(s)))
        synthetic, self.held_out = None, None
        if n_synth:
            bank = source_bank(s, duts_tr, log)
            synthetic = synthetic_stream(s, bank, duts_tr, n_synth, start, log)
            if s.instances.init_heads and s.instances.init_heads.endswith(".safetensors") and checkpoint is None:
                # the exported heads' BatchNorms are identities that batch statistics would break; the EMA
                # then starts from the result (a resumed run's heads were re-expressed when it began)
                reexpress_loaded_heads(model, s, bank, log)
                self.ema.model.load_state_dict(model.state_dict())
            if frozen:
                self.held_out = held_out_samples(s, duts_tr, bank)
        self.batches = StepBatches(views, synthetic, frozen)
        self.step_loss = StepLoss(s, model, teacher, n_synth)

    def run(self) -> None:
        """Trains until the schedule ends, `max_steps` or `max_hours` pass, or SIGTERM / SIGINT
        arrives; writes last.pt at the end and every `ckpt_minutes`."""
        s, run, schedule = self.s, self.s.run, self.schedule
        stop = {"flag": False}
        signal.signal(signal.SIGTERM, lambda *_: stop.update(flag=True))
        signal.signal(signal.SIGINT, lambda *_: stop.update(flag=True))
        set_train_mode(self.model, s)
        self.started = t_ckpt = time.time()
        window = Window()
        step = schedule.start_step
        while (step < schedule.total_steps and not stop["flag"]
               and not (run.max_steps and step - schedule.start_step >= run.max_steps)):
            lr = schedule.lr(step)
            for g in self.opt.param_groups:
                g["lr"] = lr * g.get("lr_scale", 1.0)
            xt, yt, b, waited = self.batches.next()
            loss, terms = self.step_loss(xt, yt, b)
            self.opt.zero_grad(set_to_none=True)
            loss.backward()
            self.opt.step()
            self.ema.update(self.model, step)
            step += 1
            window.add(xt.shape[0], loss.item(), waited, terms)
            if step % run.log_every == 0:
                self.files.log(window.line(step, schedule.epoch(step), lr, s.data.batch))
                window = Window()
                torch.set_num_threads(pick_threads(s))
            if schedule.validates(step, s.validation.val_every):
                self.validate(step, lr)
            if run.snapshot_every and step % run.snapshot_every == 0:
                self.files.save({"model": self.model.state_dict(), "ema": self.ema.model.state_dict(), "step": step,
                                 "args": s.args(), "commit": git_commit()}, f"snapshots/step-{step}.pt")
            if time.time() - t_ckpt > run.ckpt_minutes * 60:
                self.files.save(self.state(step), "last.pt")
                t_ckpt = time.time()
            if time.time() - self.started > run.max_hours * 3600:
                break
        path = self.files.save(self.state(step), "last.pt")
        self.files.log(f"stopped at step {step}; checkpoint {path}")

    def validate(self, step: int, lr: float) -> None:
        """Scores model and EMA (validation.py); with the foreground trained, the better of the two
        becomes best.pt when it beats every earlier round."""
        entry = {"step": step, "epoch": round(self.schedule.epoch(step), 3), "lr": lr,
                 "hours": round((time.time() - self.started) / 3600, 3)}
        networks = {"model": self.model, "ema": self.ema.model}
        if self.frozen:
            heads_round(networks, self.held_out, self.s, self.files, entry)
            set_train_mode(self.model, self.s)
            return
        by_set = foreground_round(networks, self.vals, self.s, self.files, entry)
        self.model.train()
        score = {w: sum(by_set[n][w]["cut_mae"] for n in by_set) / len(by_set) for w in networks}
        which = min(score, key=score.get)
        if score[which] < self.schedule.best_cut_mae:
            self.schedule.best_cut_mae = score[which]
            first = next(iter(by_set))
            self.files.save({"ema": networks[which].state_dict(), "which": which, "step": step,
                             "epoch": entry["epoch"], "val": by_set[first][which],
                             "val_sets": {n: r[which] for n, r in by_set.items()}, "commit": git_commit(),
                             "args": self.s.args()}, "best.pt")
            self.files.log(f"new best ({which}): MAE of the cut map {score[which]:.4f} (mean over {', '.join(by_set)})")

    def state(self, step: int) -> dict:
        """Everything a resumed run continues from (last.pt)."""
        return {"model": self.model.state_dict(), "ema": self.ema.model.state_dict(), "opt": self.opt.state_dict(),
                "step": step} | self.schedule.state() | {"args": self.s.args(), "commit": git_commit()}


def heads_cost(model: SubjectNet, s: Settings) -> str:
    """The instance heads' share of the compute, for the start line ('' without heads)."""
    if model.instance is None:
        return ""
    inst = s.instances
    probe = SubjectNet(s.start.variant, instance_heads=True, boundary_head=not inst.no_boundary_head,
                       instance_affinity=inst.affinity_head, instance_context=inst.instance_context,
                       instance_fine=inst.instance_fine, instance_context_width=inst.instance_context_width,
                       instance_private=inst.instance_private)
    extra = 2 * (count_macs(probe, s.data.size, instances=True) - count_macs(probe, s.data.size)) / 1e9
    return f" + {extra:.3f} for the instance heads"


class Window:
    """The training log's window of steps: images, summed loss, data wait and the loss terms."""

    def __init__(self):
        self.started, self.images, self.loss, self.waited, self.terms = time.time(), 0, 0.0, 0.0, {}

    def add(self, images: int, loss: float, waited: float, terms: dict) -> None:
        self.images += images
        self.loss += loss
        self.waited += waited
        for k, v in terms.items():
            self.terms[k] = self.terms.get(k, 0.0) + v

    def line(self, step: int, epoch: float, lr: float, batch: int) -> str:
        dt = time.time() - self.started
        terms = "".join(f" {k} {v * batch / self.images:.4f}" for k, v in self.terms.items())
        return (f"step {step} epoch {epoch:.2f} loss {self.loss * batch / self.images:.4f} "
                f"lr {lr:.2e} {self.images / dt:.1f} img/s (data wait {100 * self.waited / dt:.0f}%) "
                f"load {os.getloadavg()[0]:.1f} threads {torch.get_num_threads()}"
                + (f"; terms (instance ones unweighted):{terms}" if terms else ""))


if __name__ == "__main__":
    main()
