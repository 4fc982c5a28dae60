#!/usr/bin/python3
"""Rewrite an fp32 ONNX export into ONNX Runtime's dynamically quantized int8 graph, the one transformers.js runs
on wasm by default (dtype "q8"), for the ONNX Runtime Web int8 column of scripts/bench.sh.

  /usr/bin/python3 scripts/bench/quantize_onnx.py --in FILE.onnx --out FILE.int8.onnx

There is no onnxruntime Python package here, so this does by hand, with `onnx` alone, what
onnxruntime.quantization.quantize_dynamic(weight_type=QInt8) does with its defaults (per_channel=False,
reduce_range=False, MatMulConstBOnly=True) and what transformers.js's scripts/quantize.py passes for "q8":

- every MatMul whose B is a constant: DynamicQuantizeLinear(A) (per-tensor uint8, scale and zero point computed at
  run time) -> MatMulInteger(A_q, B_q, A_zp, B_zp) -> Cast(float) -> Mul(., Mul(A_scale, B_scale)); B is int8
  symmetric per tensor (scale = max|B| / 127, zero point 0). Activation x activation MatMuls (q.k, att.v) stay fp32.
- Gather from a constant table (the token and position embeddings): quantize_dynamic quantizes Gather's data as an
  activation, so the table becomes uint8 asymmetric per tensor (its min..max onto 0..255), then DequantizeLinear.
- the LM head: quantize_dynamic has no integer Gemm, and Hugging Face's export writes the tied head as a MatMul on a
  transposed copy of wte; our export writes Gemm(transB=1) on wte, so it becomes that MatMul's quantized form on an
  int8 (C, V) copy (MatMulInteger has no transB), plus Add(bias) unless the bias is all zeros (ours is: it is only
  there to make torch export a Gemm).
Names follow quantize_dynamic's (W_quantized, W_scale, X_zero_point, ..._output_quantized, ...).
"""
import argparse
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper


def scale_zero_point(w, qmin, qmax, symmetric):
    """quantize_dynamic's compute_scale_zp over the whole tensor: the range [min(w, 0), max(w, 0)], made [-m, m] with
    m = max |w| when symmetric, mapped onto [qmin, qmax]; scale in float64, then float32."""
    rmin, rmax = min(float(w.min()), 0.0), max(float(w.max()), 0.0)
    if symmetric:
        rmax = max(-rmin, rmax)
        rmin = -rmax
    scale = np.float64(rmax - rmin) / np.float64(qmax - qmin)
    if scale < np.finfo(np.float32).tiny:
        return np.float32(1.0), 0
    zero_point = round((qmin + qmax) / 2.0) if symmetric else round(qmin - rmin / scale)
    return np.float32(scale), int(zero_point)


def quantize_array(w, scale, zero_point, dtype):
    # quantize_nparray: round half to even in float32, shift, clip to the type's range.
    info = np.iinfo(dtype)
    q = np.asarray((w.astype(np.float32) / scale).round() + zero_point)
    return np.clip(q, info.min, info.max).astype(dtype)


class Rewriter:
    def __init__(self, model):
        self.model = model
        g = model.graph
        self.consts = {t.name: numpy_helper.to_array(t) for t in g.initializer}
        for n in g.node:
            if n.op_type == "Constant" and n.attribute[0].name == "value":
                self.consts[n.output[0]] = numpy_helper.to_array(n.attribute[0].t)
        self.new_initializers = []
        self.quantized = {}  # tensor name -> (q, scale, zero point) names, made once and shared
        self.counts = {"MatMul": 0, "Gemm": 0, "Gather": 0}

    def add_initializer(self, name, array):
        self.new_initializers.append(numpy_helper.from_array(array, name))

    def weight_int8(self, name, w):
        """int8 symmetric per tensor (qmin -127, qmax 127)."""
        if name not in self.quantized:
            scale, zp = scale_zero_point(w, -127, 127, symmetric=True)
            self.add_initializer(name + "_quantized", quantize_array(w, scale, zp, np.int8))
            self.add_initializer(name + "_scale", np.array(scale, dtype=np.float32))
            self.add_initializer(name + "_zero_point", np.array(zp, dtype=np.int8))
            self.quantized[name] = (name + "_quantized", name + "_scale", name + "_zero_point")
        return self.quantized[name]

    def activation_uint8(self, name, nodes):
        if name not in self.quantized:
            outs = [name + "_quantized", name + "_scale", name + "_zero_point"]
            nodes.append(helper.make_node("DynamicQuantizeLinear", [name], outs, name + "_QuantizeLinear"))
            self.quantized[name] = tuple(outs)
        return self.quantized[name]

    def matmul_integer(self, node, a, b_name, b, output):
        nodes = []
        a_q, a_scale, a_zp = self.activation_uint8(a, nodes)
        b_q, b_scale, b_zp = self.weight_int8(b_name, b)
        base = node.name + "_quant"
        mm_out = output + "_output_quantized"
        nodes.append(helper.make_node("MatMulInteger", [a_q, b_q, a_zp, b_zp], [mm_out], base))
        nodes.append(helper.make_node("Cast", [mm_out], [mm_out + "_cast_output"], mm_out + "_cast",
                                      to=TensorProto.FLOAT))
        nodes.append(helper.make_node("Mul", [a_scale, b_scale], [base + "_scales_mul:0"], base + "_scales_mul"))
        nodes.append(helper.make_node("Mul", [mm_out + "_cast_output", base + "_scales_mul:0"], [output],
                                      base + "_output_scale_mul"))
        return nodes

    def rewrite(self, node):
        c = self.consts
        if node.op_type == "MatMul" and node.input[1] in c and c[node.input[1]].ndim == 2:
            self.counts["MatMul"] += 1
            return self.matmul_integer(node, node.input[0], node.input[1], c[node.input[1]], node.output[0])
        if node.op_type == "Gemm" and node.input[1] in c:
            attrs = {a.name: helper.get_attribute_value(a) for a in node.attribute}
            if attrs.get("transA", 0) or attrs.get("alpha", 1.0) != 1.0 or attrs.get("beta", 1.0) != 1.0:
                raise SystemExit(f"quantize_onnx: unsupported Gemm attributes {attrs} in {node.name}")
            self.counts["Gemm"] += 1
            w = c[node.input[1]]
            if attrs.get("transB", 0):
                w = np.ascontiguousarray(w.T)
            bias = c.get(node.input[2]) if len(node.input) > 2 else None
            if bias is None and len(node.input) > 2:
                raise SystemExit(f"quantize_onnx: the bias of {node.name} is not a constant")
            has_bias = bias is not None and bool(np.any(bias != 0))
            out = node.output[0] + "_no_bias" if has_bias else node.output[0]
            nodes = self.matmul_integer(node, node.input[0], node.input[1] + "_transposed", w, out)
            if has_bias:
                nodes.append(helper.make_node("Add", [out, node.input[2]], [node.output[0]], node.name + "_bias_add"))
            return nodes
        if node.op_type == "Gather" and node.input[0] in c and c[node.input[0]].dtype == np.float32:
            self.counts["Gather"] += 1
            name, table = node.input[0], c[node.input[0]]
            if ("gather", name) not in self.quantized:
                scale, zp = scale_zero_point(table, 0, 255, symmetric=False)
                self.add_initializer(name + "_quantized", quantize_array(table, scale, zp, np.uint8))
                self.add_initializer(name + "_scale", np.array(scale, dtype=np.float32))
                self.add_initializer(name + "_zero_point", np.array(zp, dtype=np.uint8))
                self.quantized["gather", name] = True
            gathered = node.output[0] + "_quantized"
            gather = helper.make_node("Gather", [name + "_quantized", node.input[1]], [gathered], node.name,
                                      axis=next((helper.get_attribute_value(a) for a in node.attribute
                                                 if a.name == "axis"), 0))
            dq = helper.make_node("DequantizeLinear", [gathered, name + "_scale", name + "_zero_point"],
                                  [node.output[0]], node.output[0] + "_DequantizeLinear")
            return [gather, dq]
        return [node]

    def run(self):
        g = self.model.graph
        nodes = []
        for node in g.node:
            nodes.extend(self.rewrite(node))
        # Drop what nothing reads any more (the fp32 weights, the Gemm's zero bias).
        used = {i for n in nodes for i in n.input} | {o.name for o in g.output}
        nodes = [n for n in nodes if n.op_type != "Constant" or n.output[0] in used]
        kept = [t for t in g.initializer if t.name in used] + [t for t in self.new_initializers if t.name in used]
        del g.node[:]
        g.node.extend(nodes)
        del g.initializer[:]
        g.initializer.extend(kept)
        return self.model


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--in", dest="inp", required=True, help="fp32 ONNX file (scripts/bench/export_onnx.py)")
    ap.add_argument("--out", required=True, help="int8 ONNX file to write")
    args = ap.parse_args()
    rewriter = Rewriter(onnx.load(args.inp))
    model = rewriter.run()
    onnx.checker.check_model(model)
    onnx.save(model, args.out)
    counts = ", ".join(f"{n} {op}" for op, n in rewriter.counts.items())
    print(f"wrote {args.out} ({os.path.getsize(args.out) / 1e6:.1f} MB; quantized {counts})")


if __name__ == "__main__":
    main()
