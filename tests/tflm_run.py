"""tflm_run.py MODEL.tflite IN.bin OUT.bin - run one input through TFLite
Micro's interpreter (tests/oracle.py) and write the output's raw bytes: the
oracle for the firmware examples (tests/test_examples.sh). IN.bin holds the
raw bytes of the model's single input."""
import sys

import numpy as np

import oracle


def main(model, inp, out):
    info = oracle.ModelInfo(model)
    if len(info.inputs) != 1 or len(info.outputs) != 1:
        sys.exit("tflm_run.py: %s: one input and one output expected" % model)
    t = info.tensors[info.inputs[0]]
    x = np.fromfile(inp, dtype=t["dtype"]).reshape(t["shape"])
    outs, _ = oracle.run_interpreter(model, [x], info=info)
    np.ascontiguousarray(outs[0]).tofile(out)


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    main(*sys.argv[1:])
