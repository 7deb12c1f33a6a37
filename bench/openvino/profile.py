# SPDX-License-Identifier: MIT
# Where an inference's time goes (issue 66.4): ResNet-34 (resnet.py) at batch 1 on GPU, one
# request at a time (LATENCY hint). Per precision: the wall time of an inference without and with
# OpenVINO's per-layer profiling, the sum of the layers' GPU times (OpenCL event profiling), the
# layers run, and the kernels OpenVINO chose with their share of the GPU time.
#   profile.py [f32] [f16] [--batch N] [--layers]   (--layers: each layer's time, name and kernel)
import sys, time, collections, numpy as np, openvino as ov
from resnet import resnet

args = sys.argv[1:]
batch = int(args[args.index("--batch") + 1]) if "--batch" in args else 1
layers = "--layers" in args
precisions = [a for a in args if a in ("f32", "f16")] or ["f32", "f16"]
core = ov.Core()
model = resnet(batch)
x = np.random.default_rng(2).standard_normal([batch, 3, 224, 224]).astype(np.float32)

def wall(compiled, n=40):
    r = compiled.create_infer_request()
    for _ in range(5): r.infer({0: x})
    t0 = time.perf_counter()
    for _ in range(n): r.infer({0: x})
    return (time.perf_counter() - t0) / n * 1e3, r

for p in precisions:
    cfg = {"INFERENCE_PRECISION_HINT": p, "PERFORMANCE_HINT": "LATENCY"}
    plain, _ = wall(core.compile_model(model, "GPU", cfg))
    profiled, r = wall(core.compile_model(model, "GPU", dict(cfg, PERF_COUNT=True)))
    by_kernel = collections.defaultdict(lambda: [0, 0.0])
    gpu = 0.0
    ran = 0
    for info in r.profiling_info:
        if info.status != info.Status.EXECUTED: continue
        t = info.real_time.total_seconds() * 1e3
        ran += 1
        gpu += t
        k = by_kernel[f"{info.node_type}:{info.exec_type}"]
        k[0] += 1; k[1] += t
        if layers: print(f"  layer {t:8.3f} ms  {info.node_name}  {info.exec_type}", flush=True)
    print(f"{p} batch {batch}: {plain:.3f} ms an inference ({profiled:.3f} ms profiled), "
          f"GPU {gpu:.3f} ms in {ran} layers, host and gaps {profiled - gpu:.3f} ms", flush=True)
    for name, (n, t) in sorted(by_kernel.items(), key=lambda kv: -kv[1][1]):
        print(f"  {t:8.3f} ms {100 * t / max(gpu, 1e-9):5.1f} %  x{n:3d}  {name}", flush=True)
