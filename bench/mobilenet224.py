#!/usr/bin/env python3
"""bench/mobilenet224.py OUT.tflite - MobileNetV1 (alpha 1.0, 224x224x3,
1000 classes; Keras' architecture with random weights: the cycle counts
depend on the shapes only) as a full-integer int8 .tflite, calibrated on
random inputs. Needs tensorflow (e.g. /work/venv-tf); run by
bench/bench_sweep.py when the file is missing (about 4 MB: not committed)."""
import sys

import numpy as np
import tensorflow as tf


def main(out):
    tf.random.set_seed(0)
    model = tf.keras.applications.MobileNet(weights=None, input_shape=(224, 224, 3), alpha=1.0, classes=1000)
    rng = np.random.default_rng(0)

    def rep():
        for _ in range(4):
            yield [rng.uniform(-1, 1, (1, 224, 224, 3)).astype(np.float32)]

    conv = tf.lite.TFLiteConverter.from_keras_model(model)
    conv.optimizations = [tf.lite.Optimize.DEFAULT]
    conv.representative_dataset = rep
    conv.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS_INT8]
    conv.inference_input_type = tf.int8
    conv.inference_output_type = tf.int8
    with open(out, "wb") as f:
        f.write(conv.convert())


if __name__ == "__main__":
    main(sys.argv[1])
