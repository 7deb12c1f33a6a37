# SPDX-License-Identifier: MIT
# Small models built in memory with OpenVINO's Python API, run on GPU (through the layer) and on
# CPU; prints one line per model with the max abs error relative to the output's scale.
import sys, time, numpy as np
import openvino as ov
import openvino.opset13 as op

rng = np.random.default_rng(0)
def const(shape, scale=0.1): return op.constant(rng.standard_normal(shape).astype(np.float32) * scale)

def m_softmax(n):
    x = op.parameter([4, 64], np.float32, name="x")
    y = op.softmax(op.add(op.matmul(x, const([64, n]), False, False), const([n])), 1)
    return ov.Model([y], [x], f"softmax{n}")
def m_conv(k, stride=1, groups=1, cin=16, cout=32, pad=1):
    x = op.parameter([1, cin, 20, 20], np.float32, name="x")
    if groups == 1:
        y = op.convolution(x, const([cout, cin, k, k]), [stride, stride], [pad, pad], [pad, pad], [1, 1])
    else:
        y = op.group_convolution(x, const([groups, cout // groups, cin // groups, k, k]), [stride, stride], [pad, pad], [pad, pad], [1, 1])
    return ov.Model([op.relu(y)], [x], f"conv{k}s{stride}g{groups}")
def m_pool():
    x = op.parameter([1, 16, 20, 20], np.float32, name="x")
    return ov.Model([op.max_pool(x, [2, 2], [1, 1], [0, 0], [0, 0], [2, 2]).output(0), op.avg_pool(x, [3, 3], [1, 1], [1, 1], [3, 3], False).output(0)], [x], "pool")
def m_mvn():
    x = op.parameter([2, 10, 96], np.float32, name="x")
    y = op.mvn(x, op.constant(np.array([2], np.int64)), True, 1e-5, "inside_sqrt")
    return ov.Model([op.add(op.multiply(y, const([96], 1.0)), const([96]))], [x], "mvn")
def m_attention(L=32, D=64):
    q = op.parameter([1, L, D], np.float32, name="q")
    k = op.matmul(q, const([D, D]), False, False); v = op.matmul(q, const([D, D]), False, False)
    s = op.softmax(op.multiply(op.matmul(q, k, False, True), op.constant(np.float32(1 / 8))), 2)
    return ov.Model([op.matmul(s, v, False, False)], [q], "attention")
def m_fc(i, o, b=3):
    x = op.parameter([b, i], np.float32, name="x")
    return ov.Model([op.add(op.matmul(x, const([o, i]), False, True), const([o]))], [x], f"fc{i}x{o}" + ("" if b == 3 else f"b{b}"))
def m_gather():
    x = op.parameter([50, 24], np.float32, name="x")
    return ov.Model([op.gather(x, op.constant(np.array([3, 7, 0, 49, 11], np.int32)), op.constant(np.int64(0)))], [x], "gather")
def m_interp():
    x = op.parameter([1, 8, 10, 10], np.float32, name="x")
    y = op.interpolate(x, op.constant(np.array([20, 20], np.int64)), "linear", "sizes", axes=op.constant(np.array([2, 3], np.int64)))
    return ov.Model([y], [x], "interpolate")

def m_head():
    x = op.parameter([1, 512, 7, 7], np.float32, name="x")
    y = op.reduce_mean(x, op.constant(np.array([2, 3], np.int64)), False)
    return ov.Model([op.add(op.matmul(y, const([1000, 512]), False, True), const([1000]))], [x], "head512x1000")

def all_models():
    return [m_softmax(16), m_softmax(32), m_softmax(256), m_conv(1, pad=0), m_conv(3), m_conv(3, groups=16, cin=16, cout=16),
            m_conv(3, stride=2), m_conv(3, groups=4), m_pool(), m_mvn(), m_attention(), m_fc(100, 1000), m_fc(512, 1000),
            m_fc(37, 53), m_gather(), m_interp(), m_head(), m_fc(100, 1000, 1), m_fc(16, 32, 1)]

if __name__ == "__main__":
    # models.py ref REFS.npz            the CPU plugin's results (f32), on any x86 host
    # models.py gpu REFS.npz [--f16] [NAME...]  GPU (through the layer) against them; --f16 runs
    #   the GPU at f16 (tolerance 2e-2; exit 77 where the device has no half); exit 1 on any
    #   model wrong or failed
    mode, path = sys.argv[1], sys.argv[2]
    f16 = "--f16" in sys.argv[3:]
    only = [a for a in sys.argv[3:] if a != "--f16"]
    precision, tolerance = ("f16", 2e-2) if f16 else ("f32", 1e-4)
    core = ov.Core()
    print("devices", core.available_devices, flush=True)
    ms = all_models()  # weights come from rng in this order: the same on both machines
    if mode == "ref":
        data = {}
        irng = np.random.default_rng(1)
        for m in ms:
            name = m.get_friendly_name()
            ins = [irng.standard_normal(list(p.get_shape())).astype(np.float32) for p in m.get_parameters()]
            cpu = core.compile_model(m, "CPU", {"INFERENCE_PRECISION_HINT": "f32"})
            res = cpu(ins)
            for i, a in enumerate(ins): data[f"{name}.in{i}"] = a
            for i, o in enumerate(cpu.outputs): data[f"{name}.out{i}"] = res[o]
        np.savez(path, **data)
        sys.exit(0)
    if "GPU" not in core.available_devices:
        print("no GPU device: OpenVINO's GPU plugin found no OpenCL device it takes")
        sys.exit(1)
    if f16 and "FP16" not in core.get_property("GPU", "OPTIMIZATION_CAPABILITIES"):
        print("skipped: the GPU device has no half precision (cl_khr_fp16)")
        sys.exit(77)
    data = np.load(path)
    bad = 0
    for m in ms:
        name = m.get_friendly_name()
        if only and name not in only: continue
        ins = [data[f"{name}.in{i}"] for i in range(len(m.get_parameters()))]
        try:
            t0 = time.time()
            gpu = core.compile_model(m, "GPU", {"INFERENCE_PRECISION_HINT": precision})
            res = gpu(ins)
            err = max(float(np.max(np.abs(res[o] - data[f"{name}.out{i}"])) / (np.max(np.abs(data[f"{name}.out{i}"])) + 1e-12))
                      for i, o in enumerate(gpu.outputs))
            ok = err < tolerance
            bad += not ok
            print(f"{name:14s} {precision} rel.err {err:.2e} {'ok' if ok else 'WRONG'} ({time.time()-t0:.1f} s)", flush=True)
        except Exception as e:
            bad += 1
            print(f"{name:14s} FAILED {str(e)[:400]}", flush=True)
    print("wrong or failed:", bad)
    sys.exit(1 if bad else 0)
