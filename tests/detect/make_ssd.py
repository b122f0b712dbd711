"""make_ssd.py - small SSD-like int8 .tflite detectors ending in the custom
operator TFLite_Detection_PostProcess, as the TF object detection API's
converter writes them: int8 convolutions predict per-anchor box encodings
and class scores, DEQUANTIZE makes them float (TFLite Micro's kernel reads
float), anchors are a float constant. Written with tests/tflite_build.py;
the models are committed next to this script, `python3
tests/detect/make_ssd.py tests/detect` writes them again (fixed seeds).

- ssd_fast.tflite: fast non-max suppression (use_regular_nms false), 48
  anchors, 3 classes and background, at most 24 detections.
- ssd_regular.tflite: regular (per-class) non-max suppression, 5 per class.
- ssd_u8.tflite: uint8 throughout (TF1's quantized SSD): the
  post-processing reads uint8 box encodings, scores and anchors, which
  TFLite Micro refuses and LiteRT dequantizes (its oracle).
"""
import os
import sys

import numpy as np
from flatbuffers import flexbuffers

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import tflite_build as tb  # noqa: E402
from tflite_build import S  # noqa: E402

NAME = "TFLite_Detection_PostProcess"


def options(regular, threshold, maxdet):
    b = flexbuffers.Builder()
    with b.Map():
        b.Int("max_detections", maxdet)
        b.Int("max_classes_per_detection", 1)
        b.Int("detections_per_class", 5)
        b.Bool("use_regular_nms", bool(regular))
        b.Float("nms_score_threshold", threshold)
        b.Float("nms_iou_threshold", 0.45)
        b.Int("num_classes", 3)
        b.Float("y_scale", 10.0)
        b.Float("x_scale", 10.0)
        b.Float("h_scale", 5.0)
        b.Float("w_scale", 5.0)
    return bytes(b.Finish())


def ssd(regular, seed, threshold, maxdet):
    rng = np.random.default_rng(seed)
    m = tb.Model(description="htc SSD-like detector")
    x = m.input([1, 4, 4, 3], scale=0.05, zp=0)
    f = m.conv2d(x, 8, 3, rng, act="RELU", out_zp=-128)
    nb, na = 48, 3                          # 4 x 4 cells x 3 anchors
    box = m.conv2d(f, 4 * na, 1, rng, out_zp=0, out_scale=0.05)
    cls = m.conv2d(f, 4 * na, 1, rng, out_zp=0, out_scale=0.03, w_scale=0.0005)
    b3 = m.reshape(box, [1, nb, 4])
    c3 = m.reshape(cls, [1, nb, 4])
    cs = m.logistic(c3)
    bf = m.dequantize(b3)
    cf = m.dequantize(cs)
    anchors = []
    for cy in range(4):
        for cx in range(4):
            for a in range(na):
                anchors.append([(cy + 0.5) / 4, (cx + 0.5) / 4, 0.2 + 0.15 * a, 0.3 + 0.1 * a])
    an = m.const(np.array(anchors, dtype=np.float32), "float32")
    outs = [m.tensor([1, maxdet, 4], "float32"), m.tensor([1, maxdet], "float32"), m.tensor([1, maxdet], "float32"),
            m.tensor([1], "float32")]
    oc = S.OperatorCodeT()
    oc.deprecatedBuiltinCode = S.BuiltinOperator.CUSTOM
    oc.builtinCode = S.BuiltinOperator.CUSTOM
    oc.customCode = NAME
    oc.version = 1
    m.opcodes.append(oc)
    o = S.OperatorT()
    o.opcodeIndex = len(m.opcodes) - 1
    o.inputs = [bf, cf, an]
    o.outputs = outs
    o.customOptions = list(options(regular, threshold, maxdet))
    o.customOptionsFormat = S.CustomOptionsFormat.FLEXBUFFERS
    m.operators.append(o)
    for t in outs:
        m.output(t)
    return m


def ssd_u8(seed, threshold, maxdet):
    """The TF1 quantized SSD's form: uint8 box encodings, LOGISTIC scores and
    anchors straight into the post-processing (LiteRT dequantizes them)."""
    sys.path.insert(0, os.path.join(os.path.dirname(HERE), "u8"))
    import make_u8 as U  # noqa: E402
    rng = np.random.default_rng(seed)
    m = tb.Model(description="htc uint8 SSD-like detector")
    u = U.U8(m, rng)
    x = m.input([1, 4, 4, 3], scale=U.f32(1 / 128), zp=128, dtype="uint8")
    f = u.conv(x, 8, 3, act="RELU6", out_zp=0)
    nb, na = 48, 3
    box = u.conv(f, 4 * na, 1, out_zp=128)
    cls = u.conv(f, 4 * na, 1, out_zp=128)
    m.tensors[box].quantization.scale = [0.05]
    b3 = u.act([1, nb, 4], 0.05, 128)
    m.op("RESHAPE", [box, m.const(np.array([1, nb, 4], dtype=np.int32), "int32")], [b3], newShape=[1, nb, 4])
    c3 = u.act([1, nb, 4], m.quant(cls)[0], 128)
    m.op("RESHAPE", [cls, m.const(np.array([1, nb, 4], dtype=np.int32), "int32")], [c3], newShape=[1, nb, 4])
    cs = u.unary("LOGISTIC", c3, 1 / 256, 0)
    anchors = []
    for cy in range(4):
        for cx in range(4):
            for a in range(na):
                anchors.append([(cy + 0.5) / 4, (cx + 0.5) / 4, 0.2 + 0.15 * a, 0.3 + 0.1 * a])
    qa = np.clip(np.round(np.array(anchors) / 0.004), 0, 255).astype(np.uint8)
    an = m.const(qa, "uint8", scale=0.004, zp=0)
    outs = [m.tensor([1, maxdet, 4], "float32"), m.tensor([1, maxdet], "float32"), m.tensor([1, maxdet], "float32"),
            m.tensor([1], "float32")]
    custom(m, [b3, cs, an], outs, options(False, threshold, maxdet))
    return m


def custom(m, ins, outs, opts):
    oc = S.OperatorCodeT()
    oc.deprecatedBuiltinCode = S.BuiltinOperator.CUSTOM
    oc.builtinCode = S.BuiltinOperator.CUSTOM
    oc.customCode = NAME
    oc.version = 1
    m.opcodes.append(oc)
    o = S.OperatorT()
    o.opcodeIndex = len(m.opcodes) - 1
    o.inputs = ins
    o.outputs = outs
    o.customOptions = list(opts)
    o.customOptionsFormat = S.CustomOptionsFormat.FLEXBUFFERS
    m.operators.append(o)
    for t in outs:
        m.output(t)


MODELS = {"ssd_fast": lambda: ssd(False, 7, 0.9, 24), "ssd_regular": lambda: ssd(True, 8, 0.9, 24),
          "ssd_u8": lambda: ssd_u8(9, 0.5, 64)}


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else HERE
    os.makedirs(out, exist_ok=True)
    for name, fn in MODELS.items():
        fn().save(os.path.join(out, name + ".tflite"))


if __name__ == "__main__":
    main()
