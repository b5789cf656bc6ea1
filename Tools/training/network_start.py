"""The network a training run starts from and which of its parts learn: a resumed run's own
network, or a fresh one (random, grown from a smaller variant, or loaded from an exported file and
made trainable), with instance heads added fresh or loaded (`init_heads`); the frozen teacher of
joint training; and the train/eval modes of a run whose foreground network stays fixed."""
from __future__ import annotations

import torch
from torch import nn

from liftpy.efficientnet_lite import load_imagenet_encoder
from liftpy.instances.synth import SynthInstances
from liftpy.model_files import load_exported, load_exported_weights
from liftpy.subject_model import (InstanceHeads, SubjectNet, grow, load_person_encoder, net_for, variant_of,
                                  with_instance_heads)
from liftpy.training.settings import Settings, SettingsError
from liftpy.training.training_recipe import EMA, calibrate_from_export, param_groups, reexpress_batchnorms

# CenterNet's prior for fresh centre heads under the focal loss: -log((1 - 0.1) / 0.1)
FOCAL_CENTRE_BIAS = -2.19


def resumed_network(checkpoint: dict, s: Settings) -> SubjectNet:
    """The network of a last.pt, with the settings that describe its shape (variant, the instance
    heads' context, fine input, width and private encoder) set from what it holds."""
    s.start.variant = variant_of(checkpoint["model"])
    model = net_for(checkpoint["model"])
    model.load_state_dict(checkpoint["model"])
    heads, inst = model.instance, s.instances
    inst.instance_context = heads.source if heads is not None and heads.context else None
    if inst.instance_context:
        inst.instance_fine = bool(heads.fine)
        inst.instance_context_width = getattr(heads, heads._ctx + "16")[0][0].out_channels
    inst.instance_private = heads is not None and heads.private is not None
    if inst.instance_heads != (heads is not None):
        raise SettingsError("instance_heads cannot be switched on or off in a resumed run (start a run with init)")
    return model


def fresh_network(s: Settings, calibration_batches, recipe_loss, log) -> SubjectNet:
    """A new run's network: `variant` at random, or grown from `grow_from`; then `init`'s weights
    (made trainable from `calibration_batches()`, an iterator of (photos, masks) tensors, unless the
    foreground stays frozen); then the ImageNet or person encoder; then the instance heads."""
    start = s.start
    model = SubjectNet(start.variant)
    if start.grow_from:
        grown = torch.load(start.grow_from, map_location="cpu", weights_only=False)
        weights = grown["ema"]  # best.pt keeps its chosen weights there; last.pt its EMA
        small = SubjectNet(variant_of(weights))
        small.load_state_dict(weights)
        model = grow(small, start.variant)
        log(f"grown from {start.grow_from} ({small.variant} -> {start.variant}, step {grown.get('step')})")
    if start.init:
        load_exported_weights(model, start.init)
        if s.instances.freeze_foreground:  # stays as loaded: BN identities in eval mode, side heads unused
            log(f"freeze_foreground: {start.init} loaded as it is (no calibration); only the instance heads train")
        else:
            calibrate_from_export(model, calibration_batches(), recipe_loss, log)
    if start.imagenet_init:
        log(f"ImageNet init: {load_imagenet_encoder(model.encoder)}")
    if start.person_init:
        log(f"person init: {load_person_encoder(model, start.person_init)}")
    if s.instances.instance_heads:  # after the calibration, which measures the foreground network only
        model = _with_heads(model, s, log)
    return model


def _with_heads(model: SubjectNet, s: Settings, log) -> SubjectNet:
    """`model` with instance heads as the settings describe them: fresh (seeded by the data seed),
    or loaded from `init_heads`."""
    inst = s.instances
    model, fresh = with_instance_heads(model, boundary=not inst.no_boundary_head, seed=s.data.seed,
                                       context=inst.instance_context, fine=inst.instance_fine,
                                       context_width=inst.instance_context_width, private=inst.instance_private,
                                       affinity=inst.affinity_head, affinity_fine=inst.affinity_fine,
                                       affinity_blocks=inst.affinity_blocks)
    log(f"instance heads: {len(fresh)} tensors initialised fresh (seed {s.data.seed}), loaded with "
        f"strict=False for just these keys ({fresh[0]} ... {fresh[-1]}); every other tensor as above")
    if inst.centre_loss == "focal":
        with torch.no_grad():
            model.instance.branches["centre"][-1].bias.fill_(FOCAL_CENTRE_BIAS)
        log(f"centre_loss focal: the centre head's bias starts at {FOCAL_CENTRE_BIAS} (CenterNet's prior, p 0.1)")
    if inst.init_heads:
        _load_heads(model, s, log)
    return model


def _load_heads(model: SubjectNet, s: Settings, log) -> None:
    """Loads `init_heads` (a checkpoint's EMA heads, or an exported file's, whose BatchNorms are
    identities until `reexpress_loaded_heads`) into the fresh heads of `model`. A new affinity
    branch beside loaded heads keeps its fresh weights, and its trunk starts as the loaded trunk."""
    inst = s.instances
    if inst.init_heads.endswith(".safetensors"):
        heads = load_exported(inst.init_heads).instance.state_dict()
    else:
        ema = torch.load(inst.init_heads, map_location="cpu", weights_only=False)["ema"]
        heads = {k.removeprefix("instance."): v for k, v in ema.items() if k.startswith("instance.")}
    wide = model.instance.affinity_trunk[0].weight if inst.affinity_fine else None
    narrow = heads.get("affinity_trunk.0.weight")
    if wide is not None and narrow is not None and narrow.shape[1] < wide.shape[1]:
        # affinity_fine on a loaded branch: the encoder's /4 inputs start at zero weight
        heads = dict(heads, **{"affinity_trunk.0.weight": torch.cat(
            [narrow, narrow.new_zeros(narrow.shape[0], wide.shape[1] - narrow.shape[1], *narrow.shape[2:])], 1)})
        log(f"affinity_fine: the loaded affinity trunk widened from {narrow.shape[1]} to "
            f"{wide.shape[1]} input channels with zero weights")
    missing, unexpected = model.instance.load_state_dict(heads, strict=False)
    missing = [k for k in missing if not (inst.affinity_head and k.startswith(InstanceHeads.AFFINITY_PARTS))]
    if unexpected or any(not k.startswith("private.") for k in missing):
        raise SettingsError(f"init_heads {inst.init_heads}: its heads do not fit these (unexpected {unexpected}, "
                            f"missing {[k for k in missing if not k.startswith('private.')]})")
    log(f"instance heads: {len(heads)} tensors from {inst.init_heads} instead"
        + (f"; the private encoder copy ({len(missing)} tensors) as seeded" if missing else ""))
    if inst.affinity_head and not any(k.startswith("affinity_trunk.") for k in heads):
        # a new affinity branch's own trunk starts as the loaded trunk; a loaded branch stays
        model.instance.affinity_trunk.load_state_dict(model.instance.trunk.state_dict())


def reexpress_loaded_heads(model: SubjectNet, s: Settings, bank, log) -> None:
    """Makes the identity BatchNorms of heads loaded from an exported file trainable: measured on 24
    batches of 16 composites from another seed (`reexpress_batchnorms`)."""
    synth = s.synth
    calibration = SynthInstances(seed=s.data.seed + 1, size=s.data.size, bank=bank, photo_p=synth.synth_photo_p,
                                 relation_p=synth.synth_relations, photo_paste_p=synth.synth_photo_paste_p)
    bns = [m for n, m in model.instance.named_modules()
           if isinstance(m, nn.BatchNorm2d) and not n.startswith("private.")
           and (not s.instances.affinity_only or n.startswith(InstanceHeads.AFFINITY_PARTS))]
    model.eval()
    views = (torch.stack([torch.from_numpy(calibration[i]["image"]) for i in range(j * 16, j * 16 + 16)])
             .float().div(255).permute(0, 3, 1, 2).contiguous(memory_format=torch.channels_last)
             for j in range(24))
    reexpress_batchnorms(bns, model.forward_instances, views)
    log(f"init_heads {s.instances.init_heads}: {len(bns)} head BatchNorms re-expressed from 24 batches of 16 composites")


def teacher_network(s: Settings, log) -> nn.Module | None:
    """The frozen teacher of joint training (`teacher`), in eval mode (its BatchNorms the identities
    load_exported_weights makes), or None."""
    if not s.loss.teacher:
        return None
    teacher = load_exported(s.loss.teacher).eval().to(memory_format=torch.channels_last)
    for p in teacher.parameters():
        p.requires_grad_(False)
    log(f"teacher: {s.loss.teacher} (variant {teacher.variant}, frozen, eval mode), its foreground probabilities "
        f"on every sample x {s.loss.distill_weight}; the recipe's loss on synthetic composites x "
        f"{s.loss.synth_fg_weight}")
    return teacher


def freeze_all_but_heads(model: SubjectNet, s: Settings) -> None:
    """With a frozen foreground nothing outside the heads needs or gets a gradient (with
    affinity_only, nothing outside the affinity branch), so AdamW sees the heads only."""
    learns = (tuple("instance." + k for k in InstanceHeads.AFFINITY_PARTS) if s.instances.affinity_only
              else ("instance.",))
    for name, p in model.named_parameters():
        p.requires_grad_(name.startswith(learns))


def moving_average(model: SubjectNet, s: Settings) -> EMA:
    """The EMA of `model`'s weights. Its decay ramps up for a network from random weights and for
    fresh heads on a frozen foreground (copying the frozen tensors leaves them bit for bit as they
    are), not for trained weights; with ema_ramp_heads only the instance heads' tensors ramp."""
    ramp = s.instances.freeze_foreground or not (s.start.grow_from or s.start.init)
    return EMA(model, s.optimiser.ema, ramp=ramp, ramp_prefix="instance." if s.optimiser.ema_ramp_heads else None)


def optimiser(model: SubjectNet, s: Settings, lr: float) -> torch.optim.AdamW:
    """AdamW over the parameters that learn (training_recipe.param_groups: decay on kernels only, the
    encoder's and the heads' rates scaled)."""
    o = s.optimiser
    groups = [dict(g, params=[p for p in g["params"] if p.requires_grad])
              for g in param_groups(model, o.wd, o.encoder_lr_scale, o.instance_lr_scale)]
    return torch.optim.AdamW([g for g in groups if g["params"]], lr=lr, betas=(0.9, 0.999))


def set_train_mode(model: SubjectNet, s: Settings) -> None:
    """Train mode for what learns: with a frozen foreground its network (BatchNorm statistics
    included) stays in eval mode, and with affinity_only so do the loaded heads, all but the
    affinity branch's own layers."""
    model.train()
    if s.instances.freeze_foreground:
        for name, child in model.named_children():
            if name != "instance":
                child.eval()
    if s.instances.affinity_only:
        model.instance.eval()
        for name, layer in model.instance.named_modules():
            if name.startswith(InstanceHeads.AFFINITY_PARTS):
                layer.train()
