"""The learning-rate schedule of a run that may span several resumed invocations: linear warm-up,
then one iteration-based cosine decay (training_recipe.lr_at) to the run's last step. A new run
takes it from its settings; a resumed run from its checkpoint, which keeps the numbers in use,
unless `total_epochs` is given again to stretch or shorten it."""
from __future__ import annotations

from dataclasses import dataclass

from liftpy.training.settings import Settings
from liftpy.training.training_recipe import lr_at


@dataclass
class Schedule:
    """Steps count optimiser steps from the run's start; an epoch is `steps_per_epoch` of them."""
    steps_per_epoch: int
    start_step: int
    total_steps: int
    warmup: int
    base_lr: float
    best_cut_mae: float  # the lowest validation score so far: best.pt is replaced only below it

    @classmethod
    def new(cls, s: Settings, steps_per_epoch: int) -> Schedule:
        o = s.optimiser
        return cls(steps_per_epoch, 0, int(o.total_epochs * steps_per_epoch), o.warmup_steps, o.lr, float("inf"))

    @classmethod
    def resumed(cls, s: Settings, checkpoint: dict, steps_per_epoch: int, stretch: bool) -> Schedule:
        """The checkpoint's schedule (`stretch`: with the length `total_epochs` gives); the settings'
        lr, warmup_steps and total_epochs are set to it, so that checkpoints record the schedule in use."""
        o = s.optimiser
        total = int(o.total_epochs * steps_per_epoch) if stretch else checkpoint["total_steps"]
        o.warmup_steps, o.lr, o.total_epochs = checkpoint["warmup"], checkpoint["base_lr"], total / steps_per_epoch
        return cls(steps_per_epoch, checkpoint["step"], total, checkpoint["warmup"], checkpoint["base_lr"],
                   checkpoint.get("best_cut_mae", float("inf")))

    def lr(self, step: int) -> float:
        return lr_at(step, self.base_lr, self.warmup, self.total_steps)

    def epoch(self, step: int) -> float:
        return step / self.steps_per_epoch

    def validates(self, step: int, every: int) -> bool:
        """After every epoch, at the end, and every `every` steps unless an epoch's end is within a
        quarter of that."""
        per = self.steps_per_epoch
        return (step % per == 0 or step == self.total_steps
                or (every and step % every == 0 and abs(step - round(step / per) * per) > every // 4))

    def state(self) -> dict:
        """What a last.pt keeps of the schedule."""
        return {"total_steps": self.total_steps, "warmup": self.warmup, "base_lr": self.base_lr,
                "best_cut_mae": self.best_cut_mae}
