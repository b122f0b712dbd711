#!/usr/bin/env python3
"""tests/bad/make_chain.py N OUT.tflite - a chain of N cheap int8 operators
on a [1, 8] tensor, for the planner's cost on long models: the first half
alternates ADD(x, x) (computed in place) and QUANTIZE (a new scale), the
second half is RESHAPEs (one alias chain, N/2 deep). Written with the
flatbuffers builder of the TFLite schema (shared shape and quantization
tables), a few seconds for 50k operators; a valid model TFLite Micro runs."""
import sys

import flatbuffers
from ai_edge_litert import schema_py_generated as S


def chain(n):
    b = flatbuffers.Builder(1 << 22)

    def ivec(start, vals):
        start(b, len(vals))
        for v in reversed(vals):
            b.PrependInt32(v)
        return b.EndVector()

    def tvec(start, offs):
        start(b, len(offs))
        for o in reversed(offs):
            b.PrependUOffsetTRelative(o)
        return b.EndVector()

    shape = ivec(S.TensorStartShapeVector, [1, 8])
    quants = []
    for scale in (0.05, 0.06):
        S.QuantizationParametersStartScaleVector(b, 1)
        b.PrependFloat32(scale)
        scv = b.EndVector()
        S.QuantizationParametersStartZeroPointVector(b, 1)
        b.PrependInt64(0)
        zpv = b.EndVector()
        S.QuantizationParametersStart(b)
        S.QuantizationParametersAddScale(b, scv)
        S.QuantizationParametersAddZeroPoint(b, zpv)
        quants.append(S.QuantizationParametersEnd(b))
    S.AddOptionsStart(b)
    S.AddOptionsAddFusedActivationFunction(b, 0)
    addopt = S.AddOptionsEnd(b)
    half = n // 2
    tensors = []
    for i in range(n + 1):
        name = b.CreateString("t%d" % i)
        S.TensorStart(b)
        S.TensorAddShape(b, shape)
        S.TensorAddType(b, S.TensorType.INT8)
        S.TensorAddBuffer(b, 0)
        S.TensorAddName(b, name)
        S.TensorAddQuantization(b, quants[min(i, half) % 2])
        tensors.append(S.TensorEnd(b))
    ops = []
    for i in range(n):
        kind = 2 if i >= half else i % 2       # 0 ADD, 1 QUANTIZE, 2 RESHAPE
        ins = ivec(S.OperatorStartInputsVector, [i, i] if kind == 0 else [i])
        outs = ivec(S.OperatorStartOutputsVector, [i + 1])
        S.OperatorStart(b)
        S.OperatorAddOpcodeIndex(b, kind)
        S.OperatorAddInputs(b, ins)
        S.OperatorAddOutputs(b, outs)
        if kind == 0:
            S.OperatorAddBuiltinOptionsType(b, S.BuiltinOptions.AddOptions)
            S.OperatorAddBuiltinOptions(b, addopt)
        ops.append(S.OperatorEnd(b))
    tv = tvec(S.SubGraphStartTensorsVector, tensors)
    ov = tvec(S.SubGraphStartOperatorsVector, ops)
    iv = ivec(S.SubGraphStartInputsVector, [0])
    outv = ivec(S.SubGraphStartOutputsVector, [n])
    S.SubGraphStart(b)
    S.SubGraphAddTensors(b, tv)
    S.SubGraphAddOperators(b, ov)
    S.SubGraphAddInputs(b, iv)
    S.SubGraphAddOutputs(b, outv)
    sg = S.SubGraphEnd(b)
    codes = []
    for code, version in ((S.BuiltinOperator.ADD, 2), (S.BuiltinOperator.QUANTIZE, 2), (S.BuiltinOperator.RESHAPE, 1)):
        S.OperatorCodeStart(b)
        S.OperatorCodeAddDeprecatedBuiltinCode(b, code)
        S.OperatorCodeAddBuiltinCode(b, code)
        S.OperatorCodeAddVersion(b, version)
        codes.append(S.OperatorCodeEnd(b))
    S.BufferStart(b)
    buf0 = S.BufferEnd(b)
    cv = tvec(S.ModelStartOperatorCodesVector, codes)
    sv = tvec(S.ModelStartSubgraphsVector, [sg])
    bv = tvec(S.ModelStartBuffersVector, [buf0])
    S.ModelStart(b)
    S.ModelAddVersion(b, 3)
    S.ModelAddOperatorCodes(b, cv)
    S.ModelAddSubgraphs(b, sv)
    S.ModelAddBuffers(b, bv)
    b.Finish(S.ModelEnd(b), file_identifier=b"TFL3")
    return bytes(b.Output())


if __name__ == "__main__":
    if len(sys.argv) != 3:
        raise SystemExit("usage: make_chain.py N OUT.tflite")
    with open(sys.argv[2], "wb") as f:
        f.write(chain(int(sys.argv[1])))
