#!/usr/bin/env python3
"""The peer beside ingot on the device machine: the same network in PyTorch (cuDNN and cuBLAS),
float16, timed the way ingot_run_lite times a run: the input copied from host memory, the model,
the output copied back, synchronised, the mean of `repeat` runs after warm-up. Both eager mode
and a CUDA Graph replay (torch.cuda.CUDAGraph) are timed. ONNX Runtime's CUDA provider would be
the named peer, but the device machine has only the CPU build of onnxruntime and no network, and
the onnxruntime-gpu wheel is larger than a device call can carry (64 MiB).

  resnet50: torchvision's ResNet-50 (random weights), the same layers as make_models.resnet()
  bert:     transformers' BertModel with make_models.bert()'s shape (4 layers, hidden 768,
            12 heads, ffn 3072, vocab 2048, seq 128)
"""
import time


def _time(fn, repeat):
    import torch
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    t0 = time.perf_counter()
    for _ in range(repeat):
        fn()
    torch.cuda.synchronize()
    return (time.perf_counter() - t0) * 1e3 / repeat


def _eager_and_graph(model, host_inputs, repeat):
    """ms per run for eager and for a graph replay, host copies included in both."""
    import torch
    dev = [x.cuda() for x in host_inputs]

    def first(out):
        if isinstance(out, (tuple, list)):
            return out[0]
        return getattr(out, "last_hidden_state", out)

    def eager_run():
        xs = [h.to("cuda") for h in host_inputs]
        return first(model(*xs)).cpu()

    with torch.inference_mode():
        eager_ms = _time(eager_run, repeat)
        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):
            for _ in range(3):
                first(model(*dev))
        torch.cuda.current_stream().wait_stream(s)
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            out = first(model(*dev))

        def graph_run():
            for d, h in zip(dev, host_inputs):
                d.copy_(h)
            g.replay()
            return out.cpu()

        graph_ms = _time(graph_run, repeat)
    return eager_ms, graph_ms


def resnet50(batch=1, repeat=50):
    import torch
    import torchvision
    torch.backends.cudnn.benchmark = True
    model = torchvision.models.resnet50(weights=None).half().cuda().eval()
    x = torch.randn(batch, 3, 224, 224).half()
    return _eager_and_graph(model, [x], repeat)


def bert(batch=1, repeat=50, layers=4, seq=128):
    import torch
    from transformers import BertConfig, BertModel
    cfg = BertConfig(vocab_size=2048, hidden_size=768, num_hidden_layers=layers,
                     num_attention_heads=12, intermediate_size=3072,
                     max_position_embeddings=max(512, seq))
    model = BertModel(cfg, add_pooling_layer=False).half().cuda().eval()
    ids = torch.randint(0, 2048, (batch, seq))
    mask = torch.ones(batch, seq, dtype=torch.int64)
    return _eager_and_graph(model, [ids, mask], repeat)


PEERS = {"resnet50": resnet50, "bert": bert}
