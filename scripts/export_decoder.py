#!/usr/bin/env python3
"""Exports a decoder language model with random weights (from a config, no downloads) to ONNX
with symbolic sequence and past lengths, for ingot's dynamic-shape path (docs/dynamic-shapes.md).

The graph takes
  input_ids            int64 [1, seq]
  past_key_<i>         float32 [1, kv_heads, past, head_dim]   (one per layer)
  past_value_<i>       float32 [1, kv_heads, past, head_dim]
and returns
  logits               float32 [1, seq, vocab]
  present_key_<i>      float32 [1, kv_heads, past + seq, head_dim]
  present_value_<i>    float32 [1, kv_heads, past + seq, head_dim]
so a caller runs the prompt with past = 0 (prefill) and then one token at a time (decode),
feeding the presents back as the next pasts. Positions are past .. past + seq - 1 and the
attention is causal; there is no padding mask (batch 1).

Models (--model):
  gpt2        GPT2LMHeadModel, GPT-2 small's shape: 12 layers, n_embd 768, 12 heads, vocab 50257
  gpt2_tiny   GPT2LMHeadModel, 2 layers, n_embd 64, 4 heads, vocab 256, 128 positions (tests)
  llama       LlamaForCausalLM, 8 layers, hidden 512, 8 heads (4 kv heads), vocab 32000
  llama_tiny  LlamaForCausalLM, 2 layers, hidden 64, 4 heads (2 kv heads), vocab 256 (tests)

Usage: export_decoder.py --model gpt2_tiny -o OUT.onnx [--seed 0]
It also writes OUT.config.json: the layer count, kv heads, head dim and vocab that a generation
loop needs. Needs torch, transformers and onnxscript (scripts/install-deps --with-export-tooling).
"""
import argparse
import json
import sys

CONFIGS = {
    "gpt2": ("gpt2", dict(n_layer=12, n_embd=768, n_head=12, vocab_size=50257, n_positions=1024)),
    # The tiny models' weights are drawn wider than GPT-2's 0.02 so greedy generation does not
    # collapse to one repeated token (the tests compare token sequences).
    "gpt2_tiny": ("gpt2", dict(n_layer=2, n_embd=64, n_head=4, vocab_size=256, n_positions=128,
                               initializer_range=0.2)),
    "llama": ("llama", dict(num_hidden_layers=8, hidden_size=512, intermediate_size=1408,
                            num_attention_heads=8, num_key_value_heads=4, vocab_size=32000,
                            max_position_embeddings=2048)),
    "llama_tiny": ("llama", dict(num_hidden_layers=2, hidden_size=64, intermediate_size=172,
                                 num_attention_heads=4, num_key_value_heads=2, vocab_size=256,
                                 max_position_embeddings=256, initializer_range=0.2)),
}


def build(name, seed):
    import torch
    import transformers

    family, cfg = CONFIGS[name]
    torch.manual_seed(seed)
    if family == "gpt2":
        config = transformers.GPT2Config(**cfg, bos_token_id=0, eos_token_id=0,
                                         attn_implementation="eager")
        model = transformers.GPT2LMHeadModel(config)
        layers, kv_heads = cfg["n_layer"], cfg["n_head"]
        head_dim, positions = cfg["n_embd"] // cfg["n_head"], cfg["n_positions"]
    else:
        config = transformers.LlamaConfig(**cfg, bos_token_id=0, eos_token_id=0,
                                          attn_implementation="eager")
        model = transformers.LlamaForCausalLM(config)
        layers, kv_heads = cfg["num_hidden_layers"], cfg["num_key_value_heads"]
        head_dim = cfg["hidden_size"] // cfg["num_attention_heads"]
        positions = cfg["max_position_embeddings"]
    model.eval()
    meta = dict(model=name, family=family, layers=layers, kv_heads=kv_heads, head_dim=head_dim,
                vocab=cfg["vocab_size"], max_positions=positions)
    return model, meta


def wrap(model, layers):
    import torch
    from transformers.cache_utils import DynamicCache

    class Decoder(torch.nn.Module):
        """Flat past tensors in, logits and flat presents out."""

        def __init__(self):
            super().__init__()
            self.model = model

        def forward(self, input_ids, *past):
            cache = DynamicCache(ddp_cache_data=[(past[2 * i], past[2 * i + 1])
                                                 for i in range(layers)])
            out = self.model(input_ids=input_ids, past_key_values=cache, use_cache=True)
            presents = []
            for layer in out.past_key_values.layers:
                presents += [layer.keys, layer.values]
            return (out.logits, *presents)

    return Decoder().eval()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", choices=sorted(CONFIGS), default="gpt2_tiny")
    ap.add_argument("-o", "--output", required=True)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    try:
        import torch
    except ImportError:
        sys.exit("export_decoder.py: needs torch, transformers and onnxscript")

    model, meta = build(args.model, args.seed)
    layers = meta["layers"]
    decoder = wrap(model, layers)
    seq, past = 5, 3  # example sizes; both stay symbolic (neither is 0 or 1, which torch pins)
    ids = torch.randint(0, meta["vocab"], (1, seq), dtype=torch.int64)
    kv = [torch.randn(1, meta["kv_heads"], past, meta["head_dim"]) for _ in range(2 * layers)]
    seq_dim = torch.export.Dim("seq", min=1, max=meta["max_positions"])
    past_dim = torch.export.Dim("past", min=0, max=meta["max_positions"] - 1)
    names = ["input_ids"]
    outs = ["logits"]
    for i in range(layers):
        names += [f"past_key_{i}", f"past_value_{i}"]
        outs += [f"present_key_{i}", f"present_value_{i}"]
    shapes = ({1: seq_dim}, tuple({2: past_dim} for _ in kv))  # forward(input_ids, *past)
    with torch.no_grad():
        prog = torch.onnx.export(decoder, (ids, *kv), dynamo=True, dynamic_shapes=shapes,
                                 input_names=names, output_names=outs, opset_version=18,
                                 external_data=False, report=False, verbose=False)
    prog.save(args.output, external_data=False)
    with open(args.output.rsplit(".onnx", 1)[0] + ".config.json", "w") as f:
        json.dump(meta, f, indent=1)
    print(f"export_decoder: {args.model} -> {args.output} ({layers} layers)")


if __name__ == "__main__":
    main()
