"""make_models.py - the Keras model zoo of tests/test_keras.py, converted by
TensorFlow's TFLiteConverter as a user converts a trained model.

Run once with TensorFlow (not needed by the tests):

    python3 -m venv /work/venv-tf && /work/venv-tf/bin/pip install tensorflow-cpu tf-keras
    /work/venv-tf/bin/python tests/keras/make_models.py [OUTDIR]   # default tests/keras/models

Every model is built with fixed seeds (random weights: htc's arithmetic does
not care whether a network is trained, TFLite Micro's oracle does not either)
and converted twice: full int8 (int8 input and output, `<name>_int8.tflite`)
and with float input and output around the int8 graph (`<name>_fio.tflite`);
those in MODELS_16X8 also with int16 activations and int8 weights
(`<name>_16x8.tflite`, int16 input and output).
The representative dataset is random with a fixed seed. Input sizes and
widths are reduced so the whole set stays small.
"""
import os
import sys

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
os.environ.setdefault("TF_ENABLE_ONEDNN_OPTS", "0")

import numpy as np
import tensorflow as tf
import keras
from keras import layers

OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "models")


def seed(s):
    keras.utils.set_random_seed(s)


# ---- the models ------------------------------------------------------------------------

def mobilenet_v3_small():
    """MobileNetV3Small (hard-swish, squeeze-and-excite), 48x48, alpha 0.5, 10 classes."""
    seed(1)
    return keras.applications.MobileNetV3Small(input_shape=(48, 48, 3), alpha=0.5, weights=None, classes=10,
                                               include_preprocessing=False, dropout_rate=0.0)


def mobilenet_v2():
    """MobileNetV2 alpha 0.35, 48x48, 10 classes."""
    seed(2)
    return keras.applications.MobileNetV2(input_shape=(48, 48, 3), alpha=0.35, weights=None, classes=10)


def tcn():
    """1-D temporal CNN: Conv1D with dilation, residual adds, GlobalAveragePooling1D."""
    seed(3)
    x = inp = keras.Input((64, 6))
    x = layers.Conv1D(16, 3, padding="causal", activation="relu")(x)
    for d in (1, 2, 4):
        y = layers.Conv1D(16, 3, padding="causal", dilation_rate=d, activation="relu")(x)
        y = layers.Conv1D(16, 3, padding="same", dilation_rate=d)(y)
        x = layers.Activation("relu")(layers.Add()([x, y]))
    x = layers.Conv1D(24, 5, strides=2, padding="valid", activation="relu")(x)
    x = layers.GlobalAveragePooling1D()(x)
    x = layers.Dense(5, activation="softmax")(x)
    return keras.Model(inp, x, name="tcn")


def transformer():
    """Tiny transformer encoder: 2 blocks of MultiHeadAttention + LayerNormalization + GELU MLP."""
    seed(4)
    x = inp = keras.Input((16, 32))
    for _ in range(2):
        a = layers.MultiHeadAttention(num_heads=2, key_dim=16)(x, x)
        x = layers.LayerNormalization(epsilon=1e-6)(layers.Add()([x, a]))
        f = layers.Dense(64, activation="gelu")(x)
        f = layers.Dense(32)(f)
        x = layers.LayerNormalization(epsilon=1e-6)(layers.Add()([x, f]))
    x = layers.GlobalAveragePooling1D()(x)
    x = layers.Dense(4, activation="softmax")(x)
    return keras.Model(inp, x, name="transformer")


def unet(up):
    """Small U-Net, 32x32x3 -> 32x32x2; `up` is 'transpose' (Conv2DTranspose),
    'nearest' or 'bilinear' (UpSampling2D: Keras 3 writes nearest as
    RESHAPE + TILE, bilinear as RESIZE_BILINEAR) or 'resize' (Resizing,
    nearest: RESIZE_NEAREST_NEIGHBOR)."""
    seed(5)
    x = inp = keras.Input((32, 32, 3))
    skips = []
    for ch in (8, 16):
        x = layers.Conv2D(ch, 3, padding="same", activation="relu")(x)
        skips.append(x)
        x = layers.MaxPooling2D()(x)
    x = layers.Conv2D(32, 3, padding="same", activation="relu")(x)
    for ch, s in zip((16, 8), reversed(skips)):
        if up == "transpose":
            x = layers.Conv2DTranspose(ch, 3, strides=2, padding="same", activation="relu")(x)
        elif up == "resize":
            x = layers.Resizing(x.shape[1] * 2, x.shape[2] * 2, interpolation="nearest")(x)
            x = layers.Conv2D(ch, 1, activation="relu")(x)
        else:
            x = layers.UpSampling2D(interpolation=up)(x)
            x = layers.Conv2D(ch, 1, activation="relu")(x)
        x = layers.Concatenate()([x, s])
        x = layers.Conv2D(ch, 3, padding="same", activation="relu")(x)
    x = layers.Conv2D(2, 1, activation="sigmoid")(x)
    return keras.Model(inp, x, name="unet_" + up)


def autoencoder():
    """Dense autoencoder with tanh, 64 -> 32 -> 8 -> 32 -> 64."""
    seed(6)
    x = inp = keras.Input((64,))
    for n in (32, 8, 32):
        x = layers.Dense(n, activation="tanh")(x)
    x = layers.Dense(64)(x)
    return keras.Model(inp, x, name="autoencoder")


def ds_cnn():
    """DS-CNN keyword spotting (MLPerf Tiny's topology, 49x10 MFCC, 64 filters)."""
    seed(7)
    x = inp = keras.Input((49, 10, 1))
    x = layers.Conv2D(64, (10, 4), strides=2, padding="same", use_bias=False)(x)
    x = layers.BatchNormalization()(x)
    x = layers.ReLU()(x)
    for _ in range(4):
        x = layers.DepthwiseConv2D(3, padding="same", use_bias=False)(x)
        x = layers.BatchNormalization()(x)
        x = layers.ReLU()(x)
        x = layers.Conv2D(64, 1, use_bias=False)(x)
        x = layers.BatchNormalization()(x)
        x = layers.ReLU()(x)
    x = layers.AveragePooling2D(pool_size=(x.shape[1], x.shape[2]))(x)
    x = layers.Flatten()(x)
    x = layers.Dense(12, activation="softmax")(x)
    return keras.Model(inp, x, name="ds_cnn")


def cnn16():
    """Small CNN for 16x8: Conv2D (ReLU), DepthwiseConv2D (ReLU6, multiplier 2), 1x1 without bias, a residual
    Add, LeakyReLU, max and average pooling, Dense (no dilation: the converter makes it SPACE_TO_BATCH_ND,
    which TFLM lacks for int16)."""
    seed(8)
    x = inp = keras.Input((12, 10, 3))
    x = layers.Conv2D(8, 3, strides=2, padding="same", activation="relu")(x)
    x = layers.DepthwiseConv2D(3, padding="same", depth_multiplier=2, activation="relu6")(x)
    y = layers.Conv2D(16, 1, use_bias=False)(x)
    x = layers.LeakyReLU(0.2)(layers.Add()([x, y]))
    x = layers.MaxPooling2D(2, padding="same")(x)
    x = layers.Conv2D(5, 3, strides=(1, 2), padding="same")(x)
    x = layers.AveragePooling2D((2, 1))(x)
    x = layers.Flatten()(x)
    x = layers.Dense(7)(x)
    return keras.Model(inp, x, name="cnn16")


def attention16():
    """Attention block for 16x8 (batch 1, static shapes): MultiHeadAttention (BATCH_MATMUL of two
    activations, SOFTMAX), a residual Add, a tanh Dense, GlobalAveragePooling1D, Dense (no
    LayerNormalization: the converter cannot quantize its NEG to 16x8; no GELU: TFLM has no int16 GELU)."""
    seed(9)
    x = inp = keras.Input((8, 16), batch_size=1)
    a = layers.MultiHeadAttention(num_heads=2, key_dim=8)(x, x)
    x = layers.Add()([x, a])
    x = layers.Dense(16, activation="tanh")(x)
    x = layers.GlobalAveragePooling1D()(x)
    x = layers.Dense(4)(x)
    return keras.Model(inp, x, name="attention16")


def lstm_kws():
    """Keyword-spotting-style LSTM on a [T, F] input (49 frames of 10 MFCC): two stacked LSTMs
    (the first returns its sequence), Dense softmax. Built with Keras 2 (tf_keras, see KERAS2):
    the converter fuses each into one UNIDIRECTIONAL_SEQUENCE_LSTM (int8 weights, int16 cell
    state)."""
    import tf_keras
    L = tf_keras.layers
    tf_keras.utils.set_random_seed(20)
    x = inp = tf_keras.Input((49, 10), batch_size=1)
    x = L.LSTM(16, return_sequences=True)(x)
    x = L.LSTM(12)(x)
    x = L.Dense(4, activation="softmax")(x)
    return tf_keras.Model(inp, x, name="lstm_kws")


def lstm_batch2():
    """LSTM on a batch of 2 sequences (batch-major state per sequence), sequence output, Dense."""
    import tf_keras
    L = tf_keras.layers
    tf_keras.utils.set_random_seed(23)
    x = inp = tf_keras.Input((12, 6), batch_size=2)
    x = L.LSTM(8, return_sequences=True)(x)
    x = L.Dense(3)(x)
    return tf_keras.Model(inp, x, name="lstm_batch2")


def lstm_bidir():
    """Bidirectional LSTM (Keras 2): two UNIDIRECTIONAL_SEQUENCE_LSTMs, the backward one on a
    REVERSE_V2 of the input, last outputs concatenated, Dense. The converter gives each LSTM's
    output the concatenation's quantization, not its hidden state's."""
    import tf_keras
    L = tf_keras.layers
    tf_keras.utils.set_random_seed(25)
    x = inp = tf_keras.Input((16, 8), batch_size=1)
    x = L.Bidirectional(L.LSTM(8))(x)
    x = L.Dense(3)(x)
    return tf_keras.Model(inp, x, name="lstm_bidir")


def lstm_unrolled():
    """Keras 3 LSTM with unroll=True (plain FULLY_CONNECTED, LOGISTIC, TANH, MUL, ADD per step):
    what TF 2.21's default Keras gives without tf_keras."""
    seed(26)
    x = inp = keras.Input((6, 5), batch_size=1)
    x = layers.LSTM(6, unroll=True)(x)
    x = layers.Dense(3)(x)
    return keras.Model(inp, x, name="lstm_unrolled")


def gru_unrolled():
    """GRU with unroll=True on a short sequence (plain ops: FC, LOGISTIC, TANH, MUL, ADD, SUB)."""
    seed(21)
    x = inp = keras.Input((8, 6), batch_size=1)
    x = layers.GRU(10, unroll=True)(x)
    x = layers.Dense(3)(x)
    return keras.Model(inp, x, name="gru_unrolled")


def rnn_unrolled():
    """SimpleRNN with unroll=True on a short sequence (FC, ADD, TANH per step)."""
    seed(22)
    x = inp = keras.Input((8, 6), batch_size=1)
    x = layers.SimpleRNN(10, unroll=True, return_sequences=True)(x)
    x = layers.Flatten()(x)
    x = layers.Dense(3)(x)
    return keras.Model(inp, x, name="rnn_unrolled")


def where_cumsum():
    """Comparisons, logical_and, where and cumsum (keras.ops) on a small
    sequence model: GREATER / LESS_EQUAL / LOGICAL_AND / SELECT_V2 in int8
    (a broadcast `where`; equal shapes convert to SELECT, which TFLite Micro
    lacks) and CUMSUM, which the int8 converter leaves in float (DEQUANTIZE
    -> CUMSUM -> QUANTIZE)."""
    seed(20)
    x = inp = keras.Input((16, 8), batch_size=1)
    d = layers.Dense(8)(x)
    e = layers.Dense(8)(x)
    c = layers.Lambda(lambda t: keras.ops.logical_and(keras.ops.greater(t[0], 0.1),
                                                      keras.ops.less_equal(t[1], t[0])))([d, e])
    w = layers.Lambda(lambda t: keras.ops.where(t[0], t[1], keras.ops.mean(t[2], axis=1, keepdims=True)))([c, d, e])
    s = layers.Lambda(lambda t: keras.ops.cumsum(t, axis=1))(w)
    y = layers.Dense(4)(layers.Flatten()(s))
    return keras.Model(inp, y, name="where_cumsum")


MODELS = {
    "mobilenet_v3_small": mobilenet_v3_small,
    "mobilenet_v2_035": mobilenet_v2,
    "tcn": tcn,
    "transformer": transformer,
    "unet_transpose": lambda: unet("transpose"),
    "unet_nearest": lambda: unet("nearest"),
    "unet_bilinear": lambda: unet("bilinear"),
    "unet_resize": lambda: unet("resize"),
    "autoencoder": autoencoder,
    "ds_cnn": ds_cnn,
    "cnn16": cnn16,
    "lstm_kws": lstm_kws,
    "lstm_batch2": lstm_batch2,
    "lstm_bidir": lstm_bidir,
    "lstm_unrolled": lstm_unrolled,
    "gru_unrolled": gru_unrolled,
    "rnn_unrolled": rnn_unrolled,
    "where_cumsum": where_cumsum,
    "attention16": attention16,
}

# 16x8 (int16 activations, int8 weights) versions: <name>_16x8.tflite
MODELS_16X8 = ("cnn16", "ds_cnn", "autoencoder", "gru_unrolled", "unet_transpose", "attention16")

# Built with Keras 2 (the tf_keras package, `pip install tf-keras`), converted in a
# second process with TF_USE_LEGACY_KERAS=1: TF 2.21's default Keras 3 lowers LSTM to a
# WHILE loop (on which the int8 converter crashes), Keras 2's LSTM converts to the fused
# UNIDIRECTIONAL_SEQUENCE_LSTM.
KERAS2 = ("lstm_kws", "lstm_batch2", "lstm_bidir")


# ---- conversion ------------------------------------------------------------------------

def randomize_bn(model, rng):
    """BatchNormalization with non-trivial statistics (fresh layers are the identity)."""
    for l in model.layers:
        if isinstance(l, layers.BatchNormalization):
            g, b, m, v = l.get_weights()
            l.set_weights([rng.uniform(0.5, 1.5, g.shape).astype(np.float32),
                           rng.uniform(-0.2, 0.2, b.shape).astype(np.float32),
                           rng.uniform(-0.2, 0.2, m.shape).astype(np.float32),
                           rng.uniform(0.5, 1.5, v.shape).astype(np.float32)])


def convert(model, int8_io, x16=False):
    shape = [model.inputs[0].shape[0] or 1] + list(model.inputs[0].shape[1:])

    def rep():
        rng = np.random.default_rng(1234)
        for _ in range(32):
            yield [rng.normal(0, 1, shape).astype(np.float32)]

    conv = tf.lite.TFLiteConverter.from_keras_model(model)
    conv.optimizations = [tf.lite.Optimize.DEFAULT]
    conv.representative_dataset = rep
    conv.target_spec.supported_ops = [tf.lite.OpsSet.TFLITE_BUILTINS_INT8]
    if x16:
        conv.target_spec.supported_ops = [tf.lite.OpsSet.EXPERIMENTAL_TFLITE_BUILTINS_ACTIVATIONS_INT16_WEIGHTS_INT8]
        conv.inference_input_type = tf.int16
        conv.inference_output_type = tf.int16
    elif int8_io:
        conv.inference_input_type = tf.int8
        conv.inference_output_type = tf.int8
    return conv.convert()


def main():
    os.makedirs(OUT, exist_ok=True)
    only = sys.argv[2:]
    legacy = os.environ.get("TF_USE_LEGACY_KERAS") == "1"
    if not legacy:
        k2 = [n for n in KERAS2 if not only or n in only]
        if k2:
            import subprocess
            subprocess.run([sys.executable, os.path.abspath(__file__), OUT] + k2, check=True,
                           env=dict(os.environ, TF_USE_LEGACY_KERAS="1"))
    for name, build in MODELS.items():
        if (only and name not in only) or (name in KERAS2) != legacy:
            continue
        model = build()
        randomize_bn(model, np.random.default_rng(99))
        kinds = [("int8", True, False), ("fio", False, False)]
        if name in MODELS_16X8:
            kinds = [("16x8", True, True)] + (kinds if name not in ("cnn16", "attention16") else [])
        for suffix, int8_io, x16 in kinds:
            data = convert(model, int8_io, x16)
            p = os.path.join(OUT, "%s_%s.tflite" % (name, suffix))
            with open(p, "wb") as f:
                f.write(data)
            print("%-40s %8d bytes" % (p, len(data)))


if __name__ == "__main__":
    main()
