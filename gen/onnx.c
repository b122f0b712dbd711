/* onnx.c - the ONNX front end (QOperator and QDQ int8 models).
   Placeholder entry until the reader lands: a clear error, not a crash. */
#include "ir.h"

Graph *onnx_read(const char *path)
{
    die("%s: ONNX models are not supported by this build yet", path);
}
