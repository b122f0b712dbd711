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


MODELS = {"ssd_fast": lambda: ssd(False, 7, 0.9, 24), "ssd_regular": lambda: ssd(True, 8, 0.9, 24)}


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else HERE
    os.makedirs(out, exist_ok=True)
    for name, fn in MODELS.items():
        fn().save(os.path.join(out, name + ".tflite"))


if __name__ == "__main__":
    main()
