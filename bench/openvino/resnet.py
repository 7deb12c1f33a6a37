# SPDX-License-Identifier: MIT
# A ResNet-34-shaped network (random weights), f32 on GPU (through the layer) against the CPU
# plugin, then throughput: inferences per second at batch 1 and 32, GPU f32/f16 and CPU f32.
import sys, time, numpy as np, openvino as ov, openvino.opset13 as op
rng = np.random.default_rng(0)
def w(shape):
    fan = int(np.prod(shape[1:]))
    return op.constant((rng.standard_normal(shape) * np.sqrt(2.0 / fan)).astype(np.float32))
def conv(x, cin, cout, k, s):
    return op.convolution(x, w([cout, cin, k, k]), [s, s], [k // 2, k // 2], [k // 2, k // 2], [1, 1])
def block(x, cin, cout, s):
    y = op.relu(conv(x, cin, cout, 3, s))
    y = conv(y, cout, cout, 3, 1)
    sc = conv(x, cin, cout, 1, s) if (s != 1 or cin != cout) else x
    return op.relu(op.add(y, sc))
def resnet(batch):
    x = op.parameter([batch, 3, 224, 224], np.float32, name="x")
    y = op.relu(conv(x, 3, 64, 7, 2))
    y = op.max_pool(y, [2, 2], [1, 1], [1, 1], [1, 1], [3, 3]).output(0)
    cin = 64
    for cout, n, s in [(64, 3, 1), (128, 4, 2), (256, 6, 2), (512, 3, 2)]:
        for i in range(n):
            y = block(y, cin, cout, s if i == 0 else 1); cin = cout
    y = op.reduce_mean(y, op.constant(np.array([2, 3], np.int64)), False)
    fcw = op.constant((rng.standard_normal([1000, 512]) * 0.05).astype(np.float32))
    return ov.Model([op.add(op.matmul(y, fcw, False, True), op.constant(np.zeros(1000, np.float32)))], [x], "resnet34")

if __name__ == "__main__":
    core = ov.Core()
    print("devices", core.available_devices, flush=True)
    m1 = resnet(1)
    x = np.random.default_rng(1).standard_normal([1, 3, 224, 224]).astype(np.float32)
    if "CPU" in core.available_devices:  # a GPU-only install (a same-run comparison of layers) has no reference
        ref = core.compile_model(m1, "CPU", {"INFERENCE_PRECISION_HINT": "f32"})([x])[0]
        got = core.compile_model(m1, "GPU", {"INFERENCE_PRECISION_HINT": "f32"})([x])[0]
        print(f"resnet34 f32 batch 1: GPU vs CPU rel.err {float(np.max(np.abs(got - ref)) / np.max(np.abs(ref))):.2e} (max |ref| {float(np.max(np.abs(ref))):.3g})", flush=True)
    def rate(model, device, hint, seconds=6.0):
        cfg = {"INFERENCE_PRECISION_HINT": hint, "PERFORMANCE_HINT": "THROUGHPUT"}
        t0 = time.time(); c = core.compile_model(model, device, cfg); tc = time.time() - t0
        batch = model.get_parameters()[0].get_shape()[0]
        inp = np.random.default_rng(2).standard_normal(list(model.get_parameters()[0].get_shape())).astype(np.float32)
        q = ov.AsyncInferQueue(c, int(c.get_property("OPTIMAL_NUMBER_OF_INFER_REQUESTS")))
        for _ in range(len(q)): q.start_async({0: inp})
        q.wait_all()
        n = 0; t0 = time.time()
        while time.time() - t0 < seconds:
            q.start_async({0: inp}); n += 1
        q.wait_all(); dt = time.time() - t0
        print(f"{device} {hint} batch {batch}: {n * batch / dt:.1f} inferences/s ({len(q)} requests, compile {tc:.1f} s)", flush=True)
    for batch in (1, 32):
        m = resnet(batch)
        for device, hint in (("CPU", "f32"), ("GPU", "f32"), ("GPU", "f16")):
            if only := sys.argv[1:]:
                if device not in only: continue
            rate(m, device, hint)
