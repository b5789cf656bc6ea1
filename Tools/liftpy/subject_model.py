"""Lift's subject (salient object) model: MobileNetV3-small-style encoder + light U-Net decoder
(variants s ... xxl), or EfficientNet-Lite0's ImageNet-trained encoder with the same decoder
(variant e0, Tools/liftpy/efficientnet_lite.py).

Every layer maps onto one op of `Sources/LiftModel/GRAPH-FORMAT.md` (conv2d incl. depthwise, with
BatchNorm folded into it at export and the activation fused; global_avg_pool; mul; add; concat;
resize_bilinear with half-pixel coordinates = PyTorch `align_corners=False`; sigmoid).

Encoder: blocks 1-8 have exactly the topology of the person model's encoder (MediaPipe selfie
segmentation, Apache-2.0: stem 3x3/2 hardswish, then inverted residuals down to stride 16 with
32 channels) so its weights can initialise them (`load_person_encoder`). Salient objects need
more context than a person mask, so three new blocks go on to stride 32 (64 channels) and an
LR-ASPP-style gated context layer sits on top. Decoder: at each scale, bilinear upsampling,
concat with the encoder skip, two 3x3 conv+BN+ReLU (the stride-2 stage uses a cheaper
1x1-depthwise-1x1 block); deep supervision through a 1x1 side head per scale.

Input: NCHW float RGB in [0, 1] (the runtime's `range [0, 1]`, mean 0, std 1), any size that is
a multiple of 32 (trained at 256x256). Output: logits at input resolution; training also returns
the side logits at /32, /16, /8 and /4.

Optional instance heads (`SubjectNet(variant, instance_heads=True)`; `InstanceHeads`):
Panoptic-DeepLab's centre heatmap and offsets, and a touching-boundary map, at /4 from the
decoder's /4 features; `forward` ignores them (what it computes, and the exported graph, stay the
same), `forward_instances` returns them too. Their parameters live under `instance.`.

The layers both encoders are built from (ConvBNAct, SqueezeExcite, InvertedResidual, `stages`) are
in `subject_blocks.py`, which `efficientnet_lite.py` imports too.
"""
from __future__ import annotations

import copy

import torch
import torch.nn as nn
import torch.nn.functional as F

from liftpy.efficientnet_lite import LiteEncoder
from liftpy.subject_blocks import ConvBNAct, InvertedResidual, stages

# (cin, expand, cout, kernel, stride, se squeeze channels, activation)
PERSON_BLOCKS = [
    (16, 16, 16, 3, 2, 8, "relu"),        # -> /4   (skip 2)
    (16, 72, 24, 3, 2, 0, "relu"),        # -> /8
    (24, 88, 24, 3, 1, 0, "relu"),        #          (skip 3)
    (24, 96, 32, 5, 2, 24, "hardswish"),  # -> /16
    (32, 128, 32, 5, 1, 32, "hardswish"),
    (32, 128, 32, 5, 1, 32, "hardswish"),
    (32, 96, 32, 5, 1, 24, "hardswish"),
    (32, 96, 32, 5, 1, 24, "hardswish"),  #          (skip 4)
]
EXTRA_BLOCKS = [
    (32, 192, 64, 5, 2, 48, "hardswish"),  # -> /32
    (64, 256, 64, 5, 1, 64, "hardswish"),
    (64, 256, 64, 5, 1, 64, "hardswish"),
]

# Sizes of the network. "s" is the first shipped model (0.57 GFLOP at 256^2). "m" grows "s" where
# it costs few FLOPs: the /16 blocks expand twice as wide, the /32 blocks are twice as wide and two
# deeper, the context layer reads all of them, and the decoder's first 3x3 conv per scale is wider.
# "l" grows "m" where the encoder is narrowest: the /8 and /16 streams (the skips) are twice as wide
# with two more blocks each, and the /4-/16 decoder convs are wider.
# "xl" grows "l" where the errors are semantic (the wrong object picked) and pixels are few: the /16
# stream 1.5x as wide, the /32 stream at MobileNetV3-Large's width (160, expanding to 960) with one
# more block, and a wider /16 decoder conv.
# `grow` starts a larger variant as an exact copy of a trained smaller one: a wider tensor takes the
# old one in its leading slice (a skip is the *last* part of its decoder concat, so a wider skip keeps
# the old channels in place), the new channels' outgoing weights into old channels are zero, and new
# blocks (residual, appended to a stage) add zero.
M_BLOCKS = PERSON_BLOCKS[:4] + [
    (32, 256, 32, 5, 1, 64, "hardswish"),
    (32, 256, 32, 5, 1, 64, "hardswish"),
    (32, 192, 32, 5, 1, 48, "hardswish"),
    (32, 192, 32, 5, 1, 48, "hardswish"),
    (32, 384, 128, 5, 2, 96, "hardswish"),
    (128, 512, 128, 5, 1, 128, "hardswish"),
    (128, 512, 128, 5, 1, 128, "hardswish"),
    (128, 512, 128, 5, 1, 128, "hardswish"),
    (128, 512, 128, 5, 1, 128, "hardswish"),
]
L_BLOCKS = [
    (16, 16, 16, 3, 2, 8, "relu"),          # -> /4
    (16, 144, 48, 3, 2, 0, "relu"),         # -> /8
    (48, 176, 48, 3, 1, 0, "relu"),
    (48, 192, 48, 3, 1, 0, "relu"),
    (48, 192, 48, 3, 1, 0, "relu"),
    (48, 192, 64, 5, 2, 48, "hardswish"),   # -> /16
    (64, 384, 64, 5, 1, 96, "hardswish"),
    (64, 384, 64, 5, 1, 96, "hardswish"),
    (64, 384, 64, 5, 1, 96, "hardswish"),
    (64, 384, 64, 5, 1, 96, "hardswish"),
    (64, 384, 64, 5, 1, 96, "hardswish"),
    (64, 384, 64, 5, 1, 96, "hardswish"),
    (64, 384, 128, 5, 2, 96, "hardswish"),  # -> /32
    (128, 512, 128, 5, 1, 128, "hardswish"),
    (128, 512, 128, 5, 1, 128, "hardswish"),
    (128, 512, 128, 5, 1, 128, "hardswish"),
    (128, 512, 128, 5, 1, 128, "hardswish"),
]
XL_BLOCKS = L_BLOCKS[:5] + [
    (48, 240, 96, 5, 2, 64, "hardswish"),     # -> /16
    *[(96, 576, 96, 5, 1, 144, "hardswish")] * 6,
    (96, 576, 160, 5, 2, 144, "hardswish"),   # -> /32
    *[(160, 960, 160, 5, 1, 240, "hardswish")] * 5,
]
# "xxl" grows "xl" where boundaries and thin parts are made: the /4 stream (a single 16-channel block
# since "s") 24 wide with two more blocks, two more blocks at /8, two more at /16 and one at /32.
XXL_BLOCKS = [
    (16, 16, 24, 3, 2, 8, "relu"),           # -> /4
    *[(24, 96, 24, 3, 1, 0, "relu")] * 2,
    (24, 144, 48, 3, 2, 0, "relu"),          # -> /8
    *[(48, 192, 48, 3, 1, 0, "relu")] * 5,
    XL_BLOCKS[5],                            # -> /16
    *[XL_BLOCKS[6]] * 8,
    XL_BLOCKS[12],                           # -> /32
    *[XL_BLOCKS[13]] * 6,
]
VARIANTS = {
    "s": {"blocks": PERSON_BLOCKS + EXTRA_BLOCKS, "decoder_mid": (24, 32, 48, 64)},
    "m": {"blocks": M_BLOCKS, "decoder_mid": (24, 48, 96, 128)},
    "l": {"blocks": L_BLOCKS, "decoder_mid": (24, 64, 128, 160)},
    "xl": {"blocks": XL_BLOCKS, "decoder_mid": (24, 64, 128, 192)},
    "xxl": {"blocks": XXL_BLOCKS, "decoder_mid": (24, 64, 128, 192)},
    # "e0": EfficientNet-Lite0's encoder (Tools/liftpy/efficientnet_lite.py), started from its ImageNet
    # weights rather than grown from the person model, with the decoder of "xxl".
    "e0": {"encoder": "efficientnet-lite0", "decoder_mid": (24, 64, 128, 192)},
}


class Encoder(nn.Module):
    def __init__(self, blocks):
        super().__init__()
        self.stem = ConvBNAct(3, 16, 3, 2, act="hardswish")
        self.blocks = nn.ModuleList(InvertedResidual(*b) for b in blocks)
        self.skip_after = {stage[-1] for stage in stages(blocks)}  # the last block of each stage
        self.widths = [16] + [blocks[stage[-1]][2] for stage in stages(blocks)]

    def forward(self, x):
        x = self.stem(x)
        feats = [x]
        for i, block in enumerate(self.blocks):
            x = block(x)
            if i in self.skip_after:
                feats.append(x)
        return feats  # /2, /4, /8, /16, /32 with self.widths channels


class GatedContext(nn.Module):
    """LR-ASPP-style: relu(BN(conv1x1 x)) * sigmoid(conv1x1(gap(x)) + b)."""

    def __init__(self, cin, cout):
        super().__init__()
        self.conv = ConvBNAct(cin, cout, 1, act="relu")
        self.gate = nn.Conv2d(cin, cout, 1)

    def forward(self, x):
        return self.conv(x) * torch.sigmoid(self.gate(F.adaptive_avg_pool2d(x, 1)))


class DecoderStage(nn.Module):
    """up(prev) to the skip's size, concat with the skip, then two convs."""

    def __init__(self, cprev, cskip, cout, mid, light=False):
        super().__init__()
        cin = cprev + cskip
        if light:
            self.convs = nn.Sequential(
                ConvBNAct(cin, mid, 1), ConvBNAct(mid, mid, 3, groups=mid),
                ConvBNAct(mid, cout, 1))
        else:
            self.convs = nn.Sequential(ConvBNAct(cin, mid, 3), ConvBNAct(mid, cout, 3))
        self.side = nn.Conv2d(cout, 1, 1)

    def forward(self, prev, skip):
        up = F.interpolate(prev, size=skip.shape[2:], mode="bilinear", align_corners=False)
        return self.convs(torch.cat([up, skip], dim=1))


class SubjectNet(nn.Module):
    WIDTHS = (24, 32, 48, 64, 96)  # decoder outputs at /2, /4, /8, /16; context at /32

    def __init__(self, variant="s", instance_heads=False, boundary_head=True, instance_context=False,
                 instance_fine=False, instance_context_width=64, instance_private=False, instance_affinity=False,
                 affinity_fine=False, affinity_blocks=0):
        super().__init__()
        spec = VARIANTS[variant]
        self.variant = variant
        if spec.get("encoder") == "efficientnet-lite0":
            self.encoder = LiteEncoder()
        else:
            self.encoder = Encoder(spec["blocks"])
        w, mid = self.WIDTHS, spec["decoder_mid"]
        skip = self.encoder.widths
        self.context = GatedContext(skip[4], w[4])
        self.context_side = nn.Conv2d(w[4], 1, 1)
        self.dec16 = DecoderStage(w[4], skip[3], w[3], mid[3])
        self.dec8 = DecoderStage(w[3], skip[2], w[2], mid[2])
        self.dec4 = DecoderStage(w[2], skip[1], w[1], mid[1])
        self.dec2 = DecoderStage(w[1], skip[0], w[0], mid[0], light=True)
        self.head = nn.Conv2d(w[0], 1, 3, padding=1)
        # Registered last and only when asked for, so a network without them has exactly the
        # parameters (names, order) and random draws it always had.
        # instance_context: None / False, "decoder" (True, as older checkpoints say) or "encoder":
        # where the heads' light instance decoder reads its /8, /16, /32 maps (InstanceHeads).
        source = {False: None, None: None, True: "decoder"}.get(instance_context, instance_context)
        widths = {None: None, "decoder": (w[2], w[3], w[4]), "encoder": tuple(skip[2:5])}[source]
        # instance_fine / instance_context_width: InstanceHeads' `fine` (the encoder's /4 map too,
        # its width) and `context_width`.
        self.instance = (InstanceHeads(w[1], boundary=boundary_head, context=widths, source=source or "decoder",
                                       fine=skip[1] if instance_fine else None, context_width=instance_context_width,
                                       affinity=instance_affinity,
                                       affinity_fine=skip[1] if instance_affinity and affinity_fine else None,
                                       affinity_blocks=affinity_blocks if instance_affinity else 0)
                         if instance_heads else None)
        # instance_private (the trainer's `instance_private`): the heads read /8, /16,
        # /32 maps from a trainable copy of the encoder's blocks past /4 (`instance.private.*`),
        # fed by the shared encoder's /4 map, instead of the shared encoder's own maps.
        if instance_private:
            if not (instance_heads and source == "encoder" and isinstance(self.encoder, LiteEncoder)):
                raise ValueError("instance_private needs instance heads with instance_context 'encoder' "
                                 "on the EfficientNet-Lite0 encoder")
            first = self._private_first()
            self.instance.private = nn.ModuleList(copy.deepcopy(b) for b in self.encoder.blocks[first:])
            self.instance.private_taps = tuple(i - first for i in sorted(self.encoder.skip_after)[2:])

    def _private_first(self) -> int:
        """Index of the encoder's first block past /4: where the heads' private copy begins."""
        return sorted(self.encoder.skip_after)[1] + 1

    @torch.no_grad()
    def seed_private_encoder(self):
        """Copies the shared encoder's blocks past /4 into the heads' private copy (instance_private),
        so that a new copy starts computing exactly the shared maps."""
        for block, mine in zip(self.encoder.blocks[self._private_first():], self.instance.private):
            mine.load_state_dict(block.state_dict())

    def _decode(self, x):
        """The foreground outputs as `forward` returns them, and the maps the instance heads read:
        the decoder's (/4, /8, /16, /32 context), then the encoder's (/8, /16, /32, /4)."""
        size = x.shape[2:]
        f2, f4, f8, f16, f32 = self.encoder(x)
        c = self.context(f32)
        d16 = self.dec16(c, f16)
        d8 = self.dec8(d16, f8)
        d4 = self.dec4(d8, f4)
        d2 = self.dec2(d4, f2)
        out = F.interpolate(self.head(d2), size=size, mode="bilinear", align_corners=False)
        feats = (d4, d8, d16, c, f8, f16, f32, f4)
        if not self.training:
            return out, feats
        # side logits stay at their own scale (/32, /16, /8, /4): the loss compares them with
        # area-downsampled targets, which is far cheaper than upsampling them.
        return [out, self.context_side(c), self.dec16.side(d16), self.dec8.side(d8), self.dec4.side(d4)], feats

    def forward(self, x):
        return self._decode(x)[0]

    def forward_features(self, x):
        """(the final foreground logits, the decoder's maps the instance heads read), whatever the
        mode: the trainer's `freeze_foreground` runs this under torch.no_grad() in eval mode."""
        out, feats = self._decode(x)
        return (out[0] if isinstance(out, list) else out), feats

    def forward_instances(self, x):
        """(what `forward` returns, the instance heads' outputs: `InstanceHeads.forward`)."""
        if self.instance is None:
            raise ValueError("this SubjectNet has no instance heads")
        out, feats = self._decode(x)
        return out, self.instance(feats)


class InstanceHeads(nn.Module):
    """Instance cues at /4 (Panoptic-DeepLab, Cheng et al. 2020, on the subject network).

    Input: the decoder's /4 features (32 channels: the finest map that has seen every coarser
    decoder stage, so its receptive field covers whole objects; /2 would cost 4x for cues that
    are smooth at the centre heatmap's sigma of 4 px, /8 is too coarse for the 1-2 px seams between
    touching objects). A shared 3x3 conv, then per output Panoptic-DeepLab's light branch (5x5
    depthwise, 1x1) and a 1x1 projection. Outputs (dict of NCHW tensors at /4):
      centre    logits of the centre heatmap (1 ch; the target's peak is 1, sigmoid it)
      offset    (dy, dx) from each /4 cell's centre (input pixel (4i + 1.5, 4j + 1.5)) to its
                instance's centre, in pixels of the network input (2 ch); the projection is scaled
                by OFFSET_SCALE so that a unit of its output is tens of pixels
      boundary  logits of the touching-boundary map (1 ch; absent when built without it)
      affinity  logits that cell (i, j) and cell (i + dy, j + dx) belong to the same instance, one
                channel per (dy, dx) of AFFINITY_OFFSETS (in cells; present only when built with
                `affinity`, the trainer's `affinity_head`): short and long-range pair cues that
                need no centre peak per object, for overlaps whose hidden object gets none; the
                branch has a trunk of its own (`affinity_trunk`, seeded from `trunk` by
                the trainer), so it can learn while every other head stays as it is, and
                with `affinity_blocks` residual dilated blocks after that trunk (AffinityBlock)
    All layers are conv2d / BatchNorm / ReLU, so they fold and export like the rest; ~50 M
    multiply-accumulates at 256², ~5 % of variant e0 (0.121 GFLOP). With `context` (the trainer's
    `instance_context`) they also read the decoder's /8, /16 and /32 maps through a light instance
    decoder (see __init__): 0.162 GFLOP, 7.6 %."""

    OFFSET_SCALE = 32.0
    CENTRE_BIAS, BOUNDARY_BIAS = -4.0, -3.0  # start at probabilities ~0.02 / ~0.05, the targets' rarity
    # (dy, dx) in /4 cells of the affinity channels: right and down at 1, 3 and 8 cells (4, 12, 32 px at 256²)
    AFFINITY_OFFSETS = ((0, 1), (1, 0), (0, 3), (3, 0), (0, 8), (8, 0))
    AFFINITY_BIAS = 2.0  # most pairs of foreground cells share their instance
    AFFINITY_DILATIONS = (1, 2, 4, 8)  # of the affinity blocks, in turn (cells)
    AFFINITY_PARTS = ("affinity_trunk.", "affinity_blocks.", "branches.affinity.")  # the branch's keys in the heads

    def __init__(self, cin=32, mid=32, boundary=True, context=None, source="decoder", fine=None, context_width=64,
                 affinity=False, affinity_fine=None, affinity_blocks=0):
        super().__init__()
        # context: the widths (/8, /16, /32) of the decoder's coarser maps for a light instance
        # decoder (Panoptic-DeepLab gives instances a decoder of their own): at /16 a 1x1 mix of the
        # /16 map and the upsampled /32 context plus a 5x5 depthwise conv, the same at /8 with the
        # /8 map, then at /4 a 1x1 of the /4 map and the upsampled /8 result into the trunk. Its
        # keys (`instance.ctx16.*`, ...) mark such heads in a state dict (net_for); None: the
        # first heads, reading the /4 map only. source "encoder" (the trainer's `instance_context
        # = "encoder"`): the /8, /16, /32 maps are the encoder's rather than the decoder's (features not
        # yet gathered into one salient blob), keys `instance.ectx16.*`, ...; the /4 map is the
        # decoder's either way. fine (the trainer's `instance_fine`, with context): the encoder's
        # /4 map (of that width) joins the /4 mix too, with the edges inside the salient blob that
        # the decoder's /4 map has smoothed over; that layer is then `instance.<ctx>4f` (net_for).
        # context_width (`instance_context_width`): the /16 mix's width, the /8 mix's being three
        # quarters of it (64 and 48: the first design).
        self.context = tuple(context) if context else None
        self.source = source
        self.private, self.private_taps = None, ()  # SubjectNet's instance_private sets them
        self._ctx = "ectx" if source == "encoder" else "ctx"
        self.fine = fine if self.context else None
        if self.context:
            c8, c16, c32 = self.context
            w16, w8 = context_width, context_width * 3 // 4
            setattr(self, self._ctx + "16", nn.Sequential(ConvBNAct(c16 + c32, w16, 1), ConvBNAct(w16, w16, 5, groups=w16)))
            setattr(self, self._ctx + "8", nn.Sequential(ConvBNAct(c8 + w16, w8, 1), ConvBNAct(w8, w8, 5, groups=w8)))
            setattr(self, self._ctx + ("4f" if fine else "4"), ConvBNAct(cin + w8 + (fine or 0), mid, 1))
            cin = mid
        self.trunk = ConvBNAct(cin, mid, 3)
        names = ("centre", "offset") + (("boundary",) if boundary else ()) + (("affinity",) if affinity else ())
        outs = {"centre": 1, "offset": 2, "boundary": 1, "affinity": len(self.AFFINITY_OFFSETS)}
        self.branches = nn.ModuleDict({n: nn.Sequential(ConvBNAct(mid, mid, 5, groups=mid), ConvBNAct(mid, mid, 1),
                                                        nn.Conv2d(mid, outs[n], 1)) for n in names})
        with torch.no_grad():
            self.branches["centre"][-1].bias.fill_(self.CENTRE_BIAS)
            self.branches["offset"][-1].weight.mul_(0.1)
            self.branches["offset"][-1].bias.zero_()
            if boundary:
                self.branches["boundary"][-1].bias.fill_(self.BOUNDARY_BIAS)
            if affinity:
                self.branches["affinity"][-1].bias.fill_(self.AFFINITY_BIAS)
        # affinity_fine (the trainer's `affinity_fine`, with context): the width of the encoder's /4
        # map, which the affinity trunk reads beside the mixed /4 map (the occlusion edges inside
        # the salient blob that the decoder smoothed over; its input channels tell net_for)
        self.affinity_fine = affinity_fine if affinity and self.context else None
        self.affinity_trunk = ConvBNAct(cin + (self.affinity_fine or 0), mid, 3) if affinity else None
        # affinity_blocks (the trainer's `affinity_blocks`): residual dilated 3x3 blocks after the
        # affinity trunk, dilations AFFINITY_DILATIONS in turn, so that a cell's pair cues see the
        # partner cell 8 cells away and the shapes between (the trunk and branch alone reach
        # +-3 cells); registered only when asked for (`instance.affinity_blocks.*`, net_for)
        if affinity and affinity_blocks:
            self.affinity_blocks = nn.ModuleList(AffinityBlock(mid, self.AFFINITY_DILATIONS[i % len(self.AFFINITY_DILATIONS)])
                                                 for i in range(affinity_blocks))
        else:
            self.affinity_blocks = ()

    def forward(self, feats):
        """feats: SubjectNet.forward_features's maps (the decoder's /4, /8, /16, /32-context, the
        encoder's /8, /16, /32, /4), or the /4 map alone for heads without context."""
        if isinstance(feats, torch.Tensor):
            feats = (feats,)
        d4 = feats[0]
        if self.context:
            d8, d16, c = feats[4:7] if self.source == "encoder" else feats[1:4]
            if self.private is not None:  # the private copy's maps, from the shared encoder's /4
                x, taps = feats[7], []
                for i, block in enumerate(self.private):
                    x = block(x)
                    if i in self.private_taps:
                        taps.append(x)
                d8, d16, c = taps

            def up(t, ref):
                return F.interpolate(t, size=ref.shape[2:], mode="bilinear", align_corners=False)
            i16 = getattr(self, self._ctx + "16")(torch.cat([d16, up(c, d16)], dim=1))
            i8 = getattr(self, self._ctx + "8")(torch.cat([d8, up(i16, d8)], dim=1))
            fine = (feats[7],) if self.fine else ()  # the encoder's /4 map
            d4 = getattr(self, self._ctx + ("4f" if self.fine else "4"))(torch.cat([d4, up(i8, d4), *fine], dim=1))
        t = self.trunk(d4)
        out = {n: b(self._affinity_features(d4, feats) if n == "affinity" else t) for n, b in self.branches.items()}
        out["offset"] = out["offset"] * self.OFFSET_SCALE
        return out

    def _affinity_features(self, d4, feats):
        """The affinity branch's input: its trunk over the mixed /4 map (and with affinity_fine the
        encoder's /4 map, feats[7]), then the affinity blocks."""
        a = self.affinity_trunk(torch.cat([d4, feats[7]], dim=1) if self.affinity_fine else d4)
        for block in self.affinity_blocks:
            a = block(a)
        return a

    def train(self, mode=True):
        """As nn.Module's, but a private encoder copy keeps its BatchNorm statistics (eval mode): it
        starts as the folded, trained encoder, whose BNs are identities that batch statistics would
        break."""
        super().train(mode)
        if self.private is not None:
            self.private.eval()
        return self


class AffinityBlock(nn.Module):
    """x + W(relu(BN(dilated 3x3 conv(x)))), W a 1x1 conv with bias that starts at zero, so a new
    block starts as the identity and a loaded branch without blocks computes what it did (the
    residual is exported as an `add` node)."""

    def __init__(self, ch, dilation):
        super().__init__()
        self.conv = ConvBNAct(ch, ch, 3, dilation=dilation)
        self.mix = nn.Conv2d(ch, ch, 1)
        with torch.no_grad():
            self.mix.weight.zero_()
            self.mix.bias.zero_()

    def forward(self, x):
        return x + self.mix(self.conv(x))


def count_macs(model: nn.Module, size=256, instances=False) -> int:
    """Multiply-accumulates of one forward pass (convs only; they are > 99 % of the work);
    `instances`: of `forward_instances`, the instance heads included."""
    macs = 0

    def hook(mod, inp, out):
        nonlocal macs
        k = mod.kernel_size[0] * mod.kernel_size[1] * (mod.in_channels // mod.groups)
        macs += out.numel() * k

    hooks = [m.register_forward_hook(hook) for m in model.modules() if isinstance(m, nn.Conv2d)]
    model.eval()
    with torch.no_grad():
        (model.forward_instances if instances else model)(torch.zeros(1, 3, size, size))
    for h in hooks:
        h.remove()
    return macs


def person_encoder_convs(model: SubjectNet):
    """The person-initialisable convolutions in the person model's execution order: a list of
    (conv, bn or None) — stem, then per block expand, depthwise, SE fc1, fc2, project."""
    enc = model.encoder
    convs = [(enc.stem[0], enc.stem[1])]
    for block in enc.blocks[:len(PERSON_BLOCKS)]:
        convs.append((block.expand[0], block.expand[1]))
        convs.append((block.depthwise[0], block.depthwise[1]))
        if block.se is not None:
            convs += [(block.se.fc1, None), (block.se.fc2, None)]
        convs.append((block.project[0], block.project[1]))
    return convs


def person_layer_names(model: SubjectNet):
    """The person model's TFLite layer names for `person_encoder_convs`, in the same order
    (`conv2d`, `conv2d_1`, ... for regular convs, `depthwise_conv2d`, `depthwise_conv2d_1`, ...)."""
    names, n_conv, n_dw = [], 0, 0
    for conv, _ in person_encoder_convs(model):
        if conv.groups > 1:
            names.append("depthwise_conv2d" + (f"_{n_dw}" if n_dw else ""))
            n_dw += 1
        else:
            names.append("conv2d" + (f"_{n_conv}" if n_conv else ""))
            n_conv += 1
    return names


@torch.no_grad()
def load_person_encoder(model: SubjectNet, path) -> str:
    """Initialises encoder blocks 1-8 from the person model file (Weights/person.safetensors:
    BN-folded OHWI conv weights + biases named by TFLite layer, see docs/models/person.md in the
    person branch). Where our conv is followed by BatchNorm, the folded bias goes into the BN's
    shift and the BN is set to identity. Returns a one-line summary."""
    from safetensors.numpy import load_file
    tensors = load_file(str(path))
    pairs = list(zip(person_encoder_convs(model), person_layer_names(model)))
    for (conv, bn), name in pairs:
        w = torch.from_numpy(tensors[f"{name}.weight"].astype("float32")).permute(0, 3, 1, 2)
        b = torch.from_numpy(tensors[f"{name}.bias"].astype("float32"))
        if tuple(w.shape) != tuple(conv.weight.shape):
            raise ValueError(f"{name}: person weight {tuple(w.shape)} vs ours {tuple(conv.weight.shape)}")
        conv.weight.copy_(w)
        if bn is None:
            conv.bias.copy_(b)
        else:
            bn.weight.fill_(1.0)
            bn.bias.copy_(b)
            bn.running_mean.zero_()
            bn.running_var.fill_(1.0 - bn.eps)
    return f"{len(pairs)} convolutions from {path} ({pairs[0][1]} ... {pairs[-1][1]})"


def variant_of(shapes: dict) -> str:
    """The variant whose parameters have exactly these shapes ({name: shape}, a state dict's or an
    exported file's convolution weights, which may lack the training-only side heads; instance
    heads, `instance.*`, are not part of a variant)."""
    shapes = {k: tuple(getattr(v, "shape", v)) for k, v in shapes.items() if not k.startswith("instance.")}
    for name in VARIANTS:
        ours = {k: tuple(v.shape) for k, v in SubjectNet(name).state_dict().items()}
        if all(ours.get(k) == v for k, v in shapes.items()):
            return name
    raise ValueError(f"no SubjectNet variant has these {len(shapes)} parameter shapes")


def net_for(state: dict) -> SubjectNet:
    """An untrained SubjectNet shaped for a state dict (or a dict of weight shapes): its variant,
    with instance heads (their boundary head, context source, encoder /4 input and context width)
    when the state dict has them."""
    heads = any(k.startswith("instance.") for k in state)
    ctx = "ectx" if any(k.startswith("instance.ectx16.") for k in state) else "ctx"
    mix16 = state.get(f"instance.{ctx}16.0.0.weight")
    shape = {k: tuple(getattr(state[k], "shape", state[k])) for k in ("instance.trunk.0.weight",
                                                                       "instance.affinity_trunk.0.weight") if k in state}
    return SubjectNet(variant_of(state), instance_heads=heads,
                      boundary_head=any(k.startswith("instance.branches.boundary.") for k in state),
                      instance_context="encoder" if ctx == "ectx" else any(k.startswith("instance.ctx16.") for k in state),
                      instance_fine=any(k.startswith(f"instance.{ctx}4f.") for k in state),
                      instance_context_width=64 if mix16 is None else tuple(getattr(mix16, "shape", mix16))[0],
                      instance_private=any(k.startswith("instance.private.") for k in state),
                      instance_affinity=any(k.startswith("instance.branches.affinity.") for k in state),
                      affinity_fine=len(shape) == 2 and shape["instance.affinity_trunk.0.weight"][1]
                      > shape["instance.trunk.0.weight"][1],  # the affinity trunk reads more
                      affinity_blocks=len({k.split(".")[2] for k in state if k.startswith("instance.affinity_blocks.")}))


def with_instance_heads(model: SubjectNet, boundary=True, seed=0, context=False, fine=False,
                        context_width=64, private=False, affinity=False, affinity_fine=False,
                        affinity_blocks=0) -> tuple[SubjectNet, list]:
    """A copy of `model` with fresh instance heads (their random initialisation seeded by `seed`):
    every tensor of `model` is loaded with strict=False, and only the heads' keys may be missing.
    With `private` the heads' encoder copy is then seeded from the loaded encoder
    (SubjectNet.seed_private_encoder). Returns (the new network, the missing keys, i.e. the heads'
    tensors)."""
    with torch.random.fork_rng():
        torch.manual_seed(seed)
        big = SubjectNet(model.variant, instance_heads=True, boundary_head=boundary, instance_context=context,
                         instance_fine=fine, instance_context_width=context_width, instance_private=private,
                         instance_affinity=affinity, affinity_fine=affinity_fine, affinity_blocks=affinity_blocks)
    missing, unexpected = big.load_state_dict(model.state_dict(), strict=False)
    if unexpected or any(not k.startswith("instance.") for k in missing):
        raise ValueError(f"instance heads: unexpected keys {unexpected}, missing outside the heads "
                         f"{[k for k in missing if not k.startswith('instance.')]}")
    if private:
        big.seed_private_encoder()
    return big.train(model.training), missing


@torch.no_grad()
def grow(small: SubjectNet, variant: str) -> SubjectNet:
    """A `variant` network that computes exactly what `small` computes: each tensor of `small` is
    copied into the leading slice of the larger one; a convolution's weights from new input
    channels into old output channels are zeroed (so new channels do not change old ones), and a
    block that `small` lacks has its projection's BatchNorm scale at zero (its residual adds 0).
    New channels and blocks keep their random initialisation and start learning from there."""
    big = SubjectNet(variant)
    old_stages = stages([b for b in VARIANTS[small.variant]["blocks"]])
    new_stages = stages(VARIANTS[variant]["blocks"])
    if len(old_stages) != len(new_stages) or any(len(a) > len(b) for a, b in zip(old_stages, new_stages)):
        raise ValueError(f"{small.variant} -> {variant}: a stage would lose blocks")
    moved = {o: n for a, b in zip(old_stages, new_stages) for o, n in zip(a, b)}  # old -> new block

    def renamed(name):
        parts = name.split(".")
        if parts[:2] == ["encoder", "blocks"]:
            parts[2] = str(moved[int(parts[2])])
        return ".".join(parts)

    old = {renamed(k): v for k, v in small.state_dict().items()}
    modules = dict(big.named_modules())
    for name, tensor in big.state_dict().items():
        if name not in old:
            continue
        src = old[name]
        if src.dim() != tensor.dim() or any(a > b for a, b in zip(src.shape, tensor.shape)):
            raise ValueError(f"{name}: {tuple(src.shape)} does not fit into {tuple(tensor.shape)}")
        conv = modules.get(name.rpartition(".")[0])
        if (name.endswith("weight") and isinstance(conv, nn.Conv2d) and conv.groups == 1
                and tensor.shape[1] > src.shape[1]):
            tensor[:src.shape[0], src.shape[1]:] = 0
        tensor[tuple(slice(0, n) for n in src.shape)] = src
    for i in sorted(set(range(len(big.encoder.blocks))) - set(moved.values())):
        block = big.encoder.blocks[i]
        if not block.residual:
            raise ValueError(f"new block {i} must be residual to start as an identity")
        block.project[1].weight.zero_()
    return big


if __name__ == "__main__":
    for variant in VARIANTS:
        m = SubjectNet(variant)
        params = sum(p.numel() for p in m.parameters())
        flops = ", ".join(f"{2 * count_macs(m, s) / 1e9:.3f} GFLOP at {s}x{s}" for s in (256, 320))
        print(f"{variant}: {flops}, params {params / 1e6:.3f} M")
    x = torch.rand(2, 3, 256, 256)
    for a, b in (("s", "m"), ("m", "l"), ("s", "l"), ("l", "xl"), ("xl", "xxl")):
        small = SubjectNet(a).eval()
        big = grow(small, b).eval()
        with torch.no_grad():
            print(f"grow {a} -> {b}: max |d| {float((small(x) - big(x)).abs().max()):.2e}")
