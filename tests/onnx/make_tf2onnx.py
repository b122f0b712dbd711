#!/usr/bin/env python3
"""tests/onnx/make_tf2onnx.py - converts the four MLPerf Tiny .tflite models
to ONNX with tf2onnx (opsets 13 and 18) into tests/onnx/tf2onnx/, the
third-party QDQ models tests/test_tf2onnx.py compiles. The converted files
are committed, so the tests need neither TensorFlow nor tf2onnx; run this
again (with them installed, e.g. in a venv outside the repository:
    python3 -m venv /tmp/venv-tf
    /tmp/venv-tf/bin/pip install tensorflow-cpu tf2onnx onnx onnxruntime
    /tmp/venv-tf/bin/python tests/onnx/make_tf2onnx.py [MODELS_DIR])
after changing the list, and it rewrites tests/onnx/tf2onnx/README with the
versions used. MODELS_DIR defaults to $HTC_MODELS or
../shared/models/mlperf_tiny next to the repository."""
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "tf2onnx")
MODELS = ("kws_ref_model", "vww_96_int8", "pretrainedResnet_quant", "ad01_int8")
OPSETS = (13, 18)


def main():
    src = sys.argv[1] if len(sys.argv) > 1 else (
        os.environ.get("HTC_MODELS") or os.path.join(HERE, "..", "..", "..", "shared", "models", "mlperf_tiny"))
    import onnx
    import tensorflow as tf
    import tf2onnx
    os.makedirs(OUT, exist_ok=True)
    for m in MODELS:
        for opset in OPSETS:
            dst = os.path.join(OUT, "%s_op%d.onnx" % (m, opset))
            subprocess.run([sys.executable, "-m", "tf2onnx.convert", "--tflite", os.path.join(src, m + ".tflite"),
                            "--opset", str(opset), "--output", dst], check=True, capture_output=True)
            onnx.checker.check_model(onnx.load(dst))
            print(dst, os.path.getsize(dst))
    with open(os.path.join(OUT, "README"), "w") as f:
        f.write("MLPerf Tiny .tflite models (../shared/models/mlperf_tiny) converted by tests/onnx/make_tf2onnx.py:\n"
                "python -m tf2onnx.convert --tflite MODEL.tflite --opset {13,18} --output MODEL_op{13,18}.onnx\n"
                "with tf2onnx %s, tensorflow-cpu %s, onnx %s (Python %d.%d).\n"
                % (tf2onnx.__version__, tf.__version__, onnx.__version__, sys.version_info[0], sys.version_info[1]))


if __name__ == "__main__":
    main()
