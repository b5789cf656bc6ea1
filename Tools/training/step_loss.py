"""One training step's loss, by what the run trains: instance heads alone on a frozen foreground,
the foreground and the heads jointly (optionally held by a teacher), the foreground with a teacher,
or the foreground alone (the recipe's BCE + soft IoU). Returns the loss and the unweighted terms
the step log shows."""
from __future__ import annotations

from functools import partial

import torch

from liftpy.subject_model import InstanceHeads
from liftpy.training.settings import Settings
from liftpy.training.training_recipe import (background_only, instance_loss, instance_targets, loss_fn,
                                             sample_weighted_loss)


def recipe_loss(s: Settings, outputs, target):
    """The foreground loss with the run's weights (training_recipe.loss_fn)."""
    return loss_fn(outputs, target, s.loss.bg_weight, s.loss.edge_weight)


class StepLoss:
    """The loss of `model` on a step's batch, with the run's settings (read at each call, so a
    resumed run's restored settings apply). `n_synth`: the batch's synthetic samples, which come
    last; `teacher`: the frozen teacher of joint training, or None."""

    def __init__(self, s: Settings, model, teacher, n_synth: int):
        self.s, self.model, self.teacher, self.n_synth = s, model, teacher, n_synth

    def __call__(self, xt, yt, b):
        """(loss, {term: unweighted value}) for images `xt`, foreground targets `yt` (None with a
        frozen foreground) and the synthetic part's samples `b` (None without)."""
        model, terms = self.model, {}
        if self.s.instances.freeze_foreground:  # the heads learn on the frozen network's maps
            with torch.no_grad():
                _, feats = model.forward_features(xt)
            return self._instance_loss(model.instance(feats), xt, b)
        if model.instance is not None:
            outputs, inst = model.forward_instances(xt)
            inst_total, inst_terms = self._instance_loss({k: v[-self.n_synth:] for k, v in inst.items()}, xt, b)
            fg_loss = self._foreground_loss(outputs, yt, b)
            loss = fg_loss + inst_total
            terms = {"foreground": float(fg_loss.detach())} | inst_terms
        elif self.teacher is not None:
            outputs = model(xt)
            fg_loss = self._foreground_loss(outputs, yt, b)
            loss = fg_loss
            terms = {"foreground": float(fg_loss.detach())}
        else:
            return recipe_loss(self.s, model(xt), yt), terms
        if self.teacher is not None:
            loss = loss + self._teacher_term(outputs, xt, terms)
        return loss, terms

    def _instance_loss(self, inst: dict, xt, b):
        """The heads' loss against the synthetic samples' targets (at the heads' stride)."""
        s = self.s.instances
        target = instance_targets(b["ids"], b["boundary"], stride=xt.shape[2] // inst["centre"].shape[2],
                                  peaks=s.centre_loss == "focal", centre=s.centre_target,
                                  affinity=InstanceHeads.AFFINITY_OFFSETS if s.affinity_head else None)
        return instance_loss(inst, self._photo_targets(target, b), s.centre_weight, s.offset_weight,
                             s.boundary_weight, s.centre_loss, s.affinity_weight)

    def _photo_targets(self, target: dict, b) -> dict:
        """The targets as `photo_heads` says: unchanged (all), or with the untouched photos' objects
        left out (background), or only those less solid than `compact_solidity` left out (compact);
        the untouched photos' affinity pairs weighted by `affinity_photo_weight`."""
        s = self.s.instances
        photo = b["composite"] == 0
        if "affinity_weight" in target and s.affinity_photo_weight != 1.0:
            scale = 1 + (s.affinity_photo_weight - 1) * photo.float().view(-1, 1, 1, 1)
            target = dict(target, affinity_weight=target["affinity_weight"] * scale)
        if s.photo_heads == "all":
            return target
        if s.photo_heads == "compact":
            photo = photo & (b["solidity"] < s.compact_solidity)
        return background_only(target, photo, keep=s.photo_weight)

    def _foreground_loss(self, outputs, yt, b):
        """The recipe's loss on the whole batch; with synth_fg_weight != 1 the synthetic composites'
        images weighted by it (DUTS views and the synthetic stream's untouched photos: 1)."""
        weight = self.s.loss.synth_fg_weight
        if weight == 1.0 or not self.n_synth:
            return recipe_loss(self.s, outputs, yt)
        weights = [1.0] * (yt.shape[0] - self.n_synth) + [weight if c else 1.0 for c in b["composite"].tolist()]
        return sample_weighted_loss(partial(recipe_loss, self.s), outputs, yt, weights)

    def _teacher_term(self, outputs, xt, terms: dict):
        """distill_weight x the recipe's loss against the frozen teacher's probabilities on every
        sample (its own augmented input; shown unweighted as `teacher`)."""
        with torch.no_grad():
            soft = torch.sigmoid(self.teacher(xt))
        term = recipe_loss(self.s, outputs, soft)
        terms["teacher"] = float(term.detach())
        return self.s.loss.distill_weight * term
