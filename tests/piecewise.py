"""piecewise.py - TFLite Micro's kernels as the oracle for a model TFLite
Micro's interpreter cannot run whole: one operator at a time.

Two reasons a converter's model does not run in the tflite-micro
interpreter although every kernel htc compares against is TFLM's:
- it contains an operator TFLM lacks (GELU; TILE, which Keras 3's
  UpSampling2D emits), or
- it has shapes computed at run time (Keras layers on a dynamic batch:
  SHAPE -> GATHER / REDUCE_PROD / PACK -> the shape input of RESHAPE, with
  placeholder shapes stored downstream); TFLM's RESHAPE reads the stored
  shape, so the model fails to allocate.

run() then evaluates the model operator by operator. The shape of every
tensor comes from ai-edge-litert (the desktop interpreter, reference
kernels: it resizes tensors at run time), one full run. Each operator is cut
out of the model into a one-operator .tflite with those shapes (constants
kept, no shape signature) and run in TFLM with the inputs the previous
operators produced; where TFLM has no kernel for it (it refuses to allocate)
the one-operator model runs in ai-edge-litert's reference kernels instead.
The integer shape arithmetic htc evaluates at compile time is taken from
the ai-edge-litert run. The result names the oracle of every operator.
"""
import flatbuffers
import numpy as np

from tflite_micro.python.tflite_micro import runtime as tflm

import oracle
import tflite_build as tb
from tflite_build import S


def _older_versions(data, op_name, version):
    """The model with operator op_name's version lowered by one (for an
    ai-edge-litert that registers the kernel only up to an older version;
    the kernel is the same code, the version gates newer types)."""
    m = tb.read_model(bytes(data))
    for oc in m.operatorCodes:
        if tb.builtin_name(oc) == op_name and oc.version == version:
            oc.version = version - 1
    b = flatbuffers.Builder(1024)
    b.Finish(m.Pack(b), file_identifier=b"TFL3")
    return bytes(b.Output())


LOWERED = set()     # (operator, version) ai-edge-litert ran at a lower version


def _litert(model_bytes_or_path, inputs):
    import re
    from ai_edge_litert.interpreter import Interpreter, OpResolverType
    kw = dict(experimental_op_resolver_type=OpResolverType.BUILTIN_REF, experimental_preserve_all_tensors=True)
    data = model_bytes_or_path
    if not isinstance(data, (bytes, bytearray)):
        with open(data, "rb") as f:
            data = f.read()
    for _ in range(4):
        try:
            it = Interpreter(model_content=bytes(data), **kw)
            break
        except ValueError as e:
            m = re.search(r"builtin opcode '(\w+)' version '(\d+)'", str(e))
            if not m:
                raise
            LOWERED.add((m.group(1), int(m.group(2))))
            data = _older_versions(data, m.group(1), int(m.group(2)))
    details = it.get_input_details()
    for d, x in zip(details, inputs):
        if list(d["shape"]) != list(np.shape(x)):
            it.resize_tensor_input(d["index"], list(np.shape(x)))
    it.allocate_tensors()
    for d, x in zip(it.get_input_details(), inputs):
        it.set_tensor(d["index"], np.ascontiguousarray(x, dtype=d["dtype"]))
    it.invoke()
    tensors = {}
    for d in it.get_tensor_details():
        try:
            tensors[d["index"]] = it.get_tensor(d["index"]).copy()
        except ValueError:
            pass
    return [it.get_tensor(d["index"]).copy() for d in it.get_output_details()], tensors


def static_info(model_path):
    """ModelInfo whose tensor shapes are the ones the model takes at run time
    (ai-edge-litert resizes dynamic tensors), not the stored placeholders."""
    info = oracle.ModelInfo(model_path)
    xs = [np.zeros(info.tensors[i]["shape"], info.tensors[i]["dtype"]) for i in info.inputs]
    _, ref = _litert(model_path, xs)
    for i, a in ref.items():
        if i < len(info.tensors) and not info.tensors[i]["const"]:
            info.tensors[i]["shape"] = list(a.shape)
    return info


def shape_arithmetic(info):
    """Operators htc evaluates at compile time: integer outputs computed from
    constants and SHAPE only (int32/int64, not quantized)."""
    known = {i for i, t in enumerate(info.tensors) if t["const"]}
    folded = []
    for op in info.ops:
        outs = [info.tensors[t] for t in op["outputs"]]
        ints = all(t["dtype"] in (np.int32, np.int64) and not t["scale"] for t in outs)
        ins = [i for i in op["inputs"] if i >= 0]
        if ints and (op["op"] == "SHAPE" or all(i in known for i in ins)):
            folded.append(op["index"])
            known.update(op["outputs"])
    return folded


def one_op_model(model, k, shapes):
    """Operator k of ModelT `model` alone: its tensors (shapes from `shapes`,
    {tensor index: shape}, for non-constant tensors), constants copied."""
    sg = model.subgraphs[0]
    op = sg.operators[k]
    idx = []
    for i in list(op.inputs) + list(op.outputs):
        if i >= 0 and i not in idx:
            idx.append(i)
    remap = {old: new for new, old in enumerate(idx)}
    buffers = [S.BufferT()]
    tensors = []
    inputs = []
    for old in idx:
        t = sg.tensors[old]
        n = S.TensorT()
        n.type, n.name, n.quantization = t.type, t.name, t.quantization
        b = model.buffers[t.buffer] if t.buffer else None
        if b is not None and b.data is not None and len(b.data) > 0:
            nb = tb._AlignedBufferT()
            nb.data = b.data
            n.shape = list(t.shape) if t.shape is not None else []
        else:
            nb = S.BufferT()
            n.shape = [int(s) for s in shapes[old]]
            if old in op.inputs:
                inputs.append(remap[old])
        buffers.append(nb)
        n.buffer = len(buffers) - 1
        tensors.append(n)
    o = S.OperatorT()
    o.opcodeIndex = 0
    o.inputs = [remap[i] if i >= 0 else -1 for i in op.inputs]
    o.outputs = [remap[i] for i in op.outputs]
    o.builtinOptionsType, o.builtinOptions = op.builtinOptionsType, op.builtinOptions
    nsg = S.SubGraphT()
    nsg.tensors, nsg.inputs, nsg.outputs, nsg.operators, nsg.name = (
        tensors, inputs, [remap[i] for i in op.outputs], [o], "op%d" % k)
    m = S.ModelT()
    m.version = 3
    m.operatorCodes = [model.operatorCodes[op.opcodeIndex]]
    m.subgraphs = [nsg]
    m.buffers = buffers
    b = flatbuffers.Builder(1024)
    b.Finish(m.Pack(b), file_identifier=b"TFL3")
    return bytes(b.Output()), [i for i in op.inputs if i >= 0 and remap[i] in inputs], list(op.outputs)


def run(model_path, inputs, litert_ops=()):
    """(outputs, {tensor index: array}, {op index: oracle name}) -- every
    operator output, computed one operator at a time (see above). Operators
    named in litert_ops run in ai-edge-litert even where TFLM has a kernel
    (where TFLM's result is not defined; the caller says why)."""
    info = oracle.ModelInfo(model_path)
    model = tb.read_model(model_path)
    _, ref = _litert(model_path, inputs)
    shapes = {i: ref[i].shape for i in ref}
    for k, i in enumerate(info.inputs):
        shapes[i] = np.shape(inputs[k])
    state = {i: np.asarray(x) for i, x in zip(info.inputs, inputs)}
    folded = set(shape_arithmetic(info))
    used = {}
    for op in info.ops:
        k = op["index"]
        if k in folded:
            for t in op["outputs"]:
                state[t] = ref[t]
            used[k] = "ai-edge-litert (shape arithmetic, evaluated by htc at compile time)"
            continue
        data, ins, outs = one_op_model(model, k, shapes)
        xs = [state[i] for i in ins]
        it = None
        if op["op"] not in litert_ops:
            try:
                it = tflm.Interpreter.from_bytes(data, arena_size=16 * len(data) + (1 << 20),
                                                 intrepreter_config=tflm.InterpreterConfig.kPreserveAllTensors)
            except RuntimeError:
                it = None
        if it is not None:
            for j, x in enumerate(xs):
                it.set_input(np.ascontiguousarray(x).reshape(shapes[ins[j]]), j)
            it.invoke()
            for j, t in enumerate(outs):
                state[t] = np.asarray(it.get_output(j)).copy().reshape(shapes[t])
            used[k] = "tflite-micro"
        else:
            o, _ = _litert(data, xs)
            for j, t in enumerate(outs):
                state[t] = o[j]
            used[k] = "ai-edge-litert"
    outputs = [state[i] for i in info.outputs]
    tensors = {t: state[t] for op in info.ops for t in op["outputs"]}
    return outputs, tensors, used
