#!/usr/bin/env python3
"""Exports real PyTorch architectures with random weights (no downloads) to ONNX for parity tests.

Each model is built with a fixed seed (weights=None / from a config), put in eval mode and
exported with the classic TorchScript exporter (torch.onnx.export(dynamo=False), opset 17,
batch 1, static shapes). Next to OUTDIR/NAME.onnx it writes OUTDIR/NAME.inputs.npz: seeded random
inputs keyed by graph input name, the form `ingot run --inputs` and scripts/parity.py take.

Models:
  torchvision (needs torch + torchvision): resnet18 resnet50 mobilenet_v2 efficientnet_b0 vit_b_16
                                           convnext_tiny squeezenet1_1 inception_v3 (299x299,
                                           no auxiliary head)
  torchvision video (3-D convolutions, input 1x3x8x112x112): r3d_18 mc3_18 r2plus1d_18
  transformers (optional): bert_tiny  BertModel, 2 layers, hidden 128, 2 heads, seq 32
                           gpt2_tiny  GPT2Model, 2 layers, n_embd 128, 2 heads, seq 32
                           both take input_ids + attention_mask (last quarter padded)
Usage: export_models.py [--models a,b,...] [--outdir DIR] [--force]
Existing NAME.onnx + NAME.inputs.npz pairs are kept unless --force.
"""
import argparse
import os
import sys

import numpy as np

TORCHVISION_MODELS = ["resnet18", "resnet50", "mobilenet_v2", "efficientnet_b0", "vit_b_16",
                      "convnext_tiny", "squeezenet1_1", "inception_v3"]
VIDEO_MODELS = ["r3d_18", "mc3_18", "r2plus1d_18"]
TRANSFORMERS_MODELS = ["bert_tiny", "gpt2_tiny"]
MODELS = TORCHVISION_MODELS + VIDEO_MODELS + TRANSFORMERS_MODELS
SMALL_MODELS = ["resnet18", "mobilenet_v2", "bert_tiny", "gpt2_tiny"]
SEQ = 32
VOCAB = 1000
OPSET = 17


def have_torchvision():
    try:
        import torch  # noqa: F401
        import torchvision  # noqa: F401
        return True
    except ImportError:
        return False


def have_transformers():
    try:
        import torch  # noqa: F401
        import transformers  # noqa: F401
        return True
    except ImportError:
        return False


def available(name):
    """Whether the packages that `name` needs are importable."""
    if name in TORCHVISION_MODELS or name in VIDEO_MODELS:
        return have_torchvision()
    if name in TRANSFORMERS_MODELS:
        return have_transformers()
    raise KeyError(f"unknown model '{name}' (known: {', '.join(MODELS)})")


class _TupleOut:
    """Wraps a transformers model so forward returns a plain tuple of tensors."""

    @staticmethod
    def wrap(model, arg_names, keys):
        import torch

        class Wrapper(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.m = model

            def forward(self, *args):
                out = self.m(**dict(zip(arg_names, args)), return_dict=True)
                return tuple(out[k] for k in keys)

        return Wrapper()


def _padded_mask():
    mask = np.ones((1, SEQ), np.int64)
    mask[:, SEQ * 3 // 4:] = 0  # padded tail
    return mask


def build(name):
    """Returns (module, feeds: dict name -> np.ndarray in graph-input order, output_names)."""
    import torch
    torch.manual_seed(0)
    rng = np.random.default_rng(0)
    if name in TORCHVISION_MODELS:
        import torchvision
        kwargs = {"aux_logits": False, "init_weights": True} if name == "inception_v3" else {}
        model = getattr(torchvision.models, name)(weights=None, **kwargs)
        if name == "vit_b_16":  # torchvision zero-initialises the head: all-zero logits
            torch.nn.init.normal_(model.heads.head.weight, std=0.02)
            torch.nn.init.normal_(model.heads.head.bias, std=0.02)
        size = 299 if name == "inception_v3" else 224
        feeds = {"input": rng.standard_normal((1, 3, size, size)).astype(np.float32)}
        return model, feeds, ["output"]
    if name in VIDEO_MODELS:
        import torchvision
        model = getattr(torchvision.models.video, name)(weights=None)
        feeds = {"input": rng.standard_normal((1, 3, 8, 112, 112)).astype(np.float32)}
        return model, feeds, ["output"]
    if name == "bert_tiny":
        from transformers import BertConfig, BertModel
        cfg = BertConfig(vocab_size=VOCAB, hidden_size=128, num_hidden_layers=2,
                         num_attention_heads=2, intermediate_size=512,
                         max_position_embeddings=64, attn_implementation="eager")
        feeds = {"input_ids": rng.integers(0, VOCAB, size=(1, SEQ), dtype=np.int64),
                 "attention_mask": _padded_mask()}
        model = _TupleOut.wrap(BertModel(cfg), list(feeds), ["last_hidden_state", "pooler_output"])
        return model, feeds, ["last_hidden_state", "pooler_output"]
    if name == "gpt2_tiny":
        from transformers import GPT2Config, GPT2Model
        cfg = GPT2Config(vocab_size=VOCAB, n_positions=64, n_embd=128, n_layer=2, n_head=2,
                         use_cache=False, attn_implementation="eager")
        # An explicit attention_mask also keeps transformers off its packed-sequence check
        # (torch.diff), which the TorchScript exporter cannot export.
        feeds = {"input_ids": rng.integers(0, VOCAB, size=(1, SEQ), dtype=np.int64),
                 "attention_mask": _padded_mask()}
        model = _TupleOut.wrap(GPT2Model(cfg), list(feeds), ["last_hidden_state"])
        return model, feeds, ["last_hidden_state"]
    raise KeyError(f"unknown model '{name}' (known: {', '.join(MODELS)})")


def export(name, outdir, force=False):
    """Exports `name` into outdir; returns (onnx_path, inputs_npz_path)."""
    path = os.path.join(outdir, f"{name}.onnx")
    inputs = os.path.join(outdir, f"{name}.inputs.npz")
    if not force and os.path.exists(path) and os.path.exists(inputs):
        return path, inputs
    import torch
    model, feeds, output_names = build(name)
    model.eval()
    # nn.MultiheadAttention's fused fast path (vit_b_16) is aten::_native_multi_head_attention,
    # which the TorchScript exporter cannot export.
    torch.backends.mha.set_fastpath_enabled(False)
    args = tuple(torch.from_numpy(v) for v in feeds.values())
    tmp = path + ".tmp"
    with torch.no_grad():
        torch.onnx.export(model, args, tmp, dynamo=False, opset_version=OPSET,
                          input_names=list(feeds), output_names=output_names,
                          do_constant_folding=True)
    np.savez(inputs, **feeds)
    os.replace(tmp, path)
    return path, inputs


def load_inputs(npz_path):
    with np.load(npz_path) as z:
        return {k: z[k] for k in z.files}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--models", default=",".join(MODELS))
    ap.add_argument("--outdir", default="exported_models")
    ap.add_argument("--force", action="store_true", help="re-export even if the files exist")
    args = ap.parse_args(argv)
    os.makedirs(args.outdir, exist_ok=True)
    failed = 0
    for name in args.models.split(","):
        if not available(name):
            print(f"SKIP {name}: torch/torchvision/transformers not installed", flush=True)
            continue
        try:
            path, _ = export(name, args.outdir, args.force)
            print(f"exported {name} -> {path} ({os.path.getsize(path) / 1e6:.1f} MB)", flush=True)
        except Exception as e:  # report and go on with the other models
            failed += 1
            print(f"FAIL {name}: export failed: {type(e).__name__}: {e}", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
