# SPDX-License-Identifier: MIT
# A dynamic-shape softmax, a layer norm and one transformer encoder layer on GPU (through the
# layer) against the CPU plugin: prints the largest error over the largest output magnitude.
import sys, numpy as np, openvino as ov, openvino.opset13 as op
rng = np.random.default_rng(0)
def const(shape, scale=0.1): return op.constant(rng.standard_normal(shape).astype(np.float32) * scale)
core = ov.Core()
def check(m, ins, name):
    r = core.compile_model(m, "CPU", {"INFERENCE_PRECISION_HINT": "f32"})(ins)[0]
    try:
        g = core.compile_model(m, "GPU", {"INFERENCE_PRECISION_HINT": "f32"})(ins)[0]
        print(name, f"{float(np.max(np.abs(g - r)) / np.max(np.abs(r))):.2e}", flush=True)
    except Exception as e:
        print(name, "FAILED", str(e)[:300], flush=True)
# dynamic softmax
x = op.parameter(ov.PartialShape([-1, -1]), np.float32, name="x")
m = ov.Model([op.softmax(x, 1)], [x], "dynsoftmax")
for n in (7, 100, 1000):
    check(m, [rng.standard_normal([3, n]).astype(np.float32)], f"dynsoftmax{n}")
# layer norm (MVN + affine) over 768
x = op.parameter([4, 768], np.float32, name="x")
y = op.mvn(x, op.constant(np.array([1], np.int64)), True, 1e-5, "inside_sqrt")
check(ov.Model([y], [x], "ln"), [rng.standard_normal([4, 768]).astype(np.float32)], "layernorm768")
# transformer encoder layer: L=16, D=64, 4 heads via reshape
L, D, H = 16, 64, 4
x = op.parameter([1, L, D], np.float32, name="x")
def proj(t): return op.add(op.matmul(t, const([D, D]), False, False), const([D]))
def heads(t): return op.transpose(op.reshape(t, op.constant(np.array([1, L, H, D // H], np.int64)), False), op.constant(np.array([0, 2, 1, 3], np.int64)))
q, k, v = heads(proj(x)), heads(proj(x)), heads(proj(x))
a = op.softmax(op.multiply(op.matmul(q, k, False, True), op.constant(np.float32(1 / 4))), 3)
o = op.reshape(op.transpose(op.matmul(a, v, False, False), op.constant(np.array([0, 2, 1, 3], np.int64))), op.constant(np.array([1, L, D], np.int64)), False)
h = op.mvn(op.add(x, proj(o)), op.constant(np.array([2], np.int64)), True, 1e-5, "inside_sqrt")
f = op.add(op.matmul(op.relu(op.add(op.matmul(h, const([D, 4 * D]), False, False), const([4 * D]))), const([4 * D, D]), False, False), const([D]))
out = op.mvn(op.add(h, f), op.constant(np.array([2], np.int64)), True, 1e-5, "inside_sqrt")
check(ov.Model([out], [x], "encoder"), [rng.standard_normal([1, L, D]).astype(np.float32)], "encoder")
