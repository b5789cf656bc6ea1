"""One training step of each shipped kind of run, built from its config exactly as train_subject
builds it (network_start, StepLoss), on a tiny synthetic batch instead of DUTS: the heads' run
changes the affinity branch only, the foreground cycle starts from the shipped file without
changing what it computes. Needs torch and the shipped Weights/ (seconds)."""
from __future__ import annotations

from functools import partial
from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from liftpy.subject_model import InstanceHeads  # noqa: E402  (after the torch check)
from liftpy.training.network_start import (fresh_network, freeze_all_but_heads, moving_average,  # noqa: E402
                                           optimiser, set_train_mode)
from liftpy.training.settings import read_config, resolve  # noqa: E402
from liftpy.training.step_loss import StepLoss, recipe_loss  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
SIZE, BATCH = 64, 2


@pytest.fixture(autouse=True)
def in_repository(monkeypatch):
    """The configs name Weights/ relative to the repository root, where the tools run. One thread:
    these tiny batches run ten times slower when torch's threads compete with other work."""
    monkeypatch.chdir(REPO)
    torch.manual_seed(0)
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def synthetic_batch():
    """What the synthetic stream yields for two samples: two touching squares in the first (a
    composite), one object in the second (an untouched photo)."""
    ids = torch.zeros(BATCH, SIZE, SIZE, dtype=torch.uint8)
    ids[0, 8:40, 8:30], ids[0, 8:40, 30:56], ids[1, 16:48, 16:48] = 1, 2, 1
    boundary = torch.zeros(BATCH, SIZE, SIZE, dtype=torch.uint8)
    boundary[0, 8:40, 28:32] = 1
    image = torch.randint(0, 256, (BATCH, SIZE, SIZE, 3), dtype=torch.uint8)
    return {"image": image, "ids": ids, "boundary": boundary, "fg": (ids > 0).float(),
            "composite": torch.tensor([1, 0]), "solidity": torch.tensor([1.0, 1.0])}


def settings(name, **overrides):
    return resolve(read_config(name), {"size": SIZE, "batch": BATCH} | overrides, out="unused")


def test_the_shipped_heads_run_trains_the_affinity_branch_alone():
    s = settings("heads-affinity")
    log = []
    model = fresh_network(s, None, partial(recipe_loss, s), log.append).to(memory_format=torch.channels_last)
    assert any("tensors from Weights/subject.safetensors" in line for line in log)
    freeze_all_but_heads(model, s)
    ema, opt = moving_average(model, s), optimiser(model, s, s.optimiser.lr)
    before = {k: v.clone() for k, v in model.state_dict().items()}
    set_train_mode(model, s)
    b = synthetic_batch()
    loss, terms = StepLoss(s, model, None, BATCH)(b["image"].float().div(255).permute(0, 3, 1, 2), None, b)
    assert torch.isfinite(loss) and {"affinity", "offset"} <= set(terms)
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
    ema.update(model, 0)
    branch = tuple("instance." + part for part in InstanceHeads.AFFINITY_PARTS)
    after = model.state_dict()
    changed = {k for k in before if not torch.equal(before[k], after[k])}
    assert changed and all(k.startswith(branch) for k in changed), sorted(changed)
    assert all(torch.equal(before[k], ema.model.state_dict()[k]) for k in before if not k.startswith(branch))


def test_a_cycle_from_the_shipped_file_starts_where_it_ends():
    s = settings("subject-views-2")
    log = []
    batches = ((torch.rand(BATCH, 3, SIZE, SIZE), (torch.rand(BATCH, 1, SIZE, SIZE) > 0.5).float())
               for _ in range(200))
    model = fresh_network(s, lambda: batches, partial(recipe_loss, s), log.append)
    delta = next(line for line in log if "eval logits max |delta|" in line)
    assert float(delta.split("max |delta| ")[1].split(",")[0]) < 1e-3, delta  # the re-expression keeps its outputs
    model = model.to(memory_format=torch.channels_last)
    ema, opt = moving_average(model, s), optimiser(model, s, s.optimiser.lr)
    encoder_rates = {g["lr_scale"] for g in opt.param_groups}
    assert encoder_rates == {1.0, s.optimiser.encoder_lr_scale}
    set_train_mode(model, s)
    xt, yt = next(batches)
    loss, terms = StepLoss(s, model, None, 0)(xt, yt, None)
    assert torch.isfinite(loss) and terms == {}
    before = {n: p.detach().clone() for n, p in model.named_parameters()}
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
    ema.update(model, 0)
    changed = {n for n, p in model.named_parameters() if not torch.equal(before[n], p.detach())}
    assert any(n.startswith("encoder.") for n in changed) and any(n.startswith("dec4.") for n in changed)
