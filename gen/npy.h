/* npy.h - NumPy .npy / .npz reading and writing (gen/npy.c), for htc run. */
#ifndef HTC_NPY_H
#define HTC_NPY_H

#include "ir.h"

typedef struct {
    const char *name;           /* .npz entry name without ".npy"; "" for a .npy file */
    char kind;                  /* 'i', 'u', 'f', 'b' */
    int size;                   /* bytes per element */
    int rank;
    int64_t shape[MAX_RANK];
    int64_t numel;
    const uint8_t *data;        /* little endian, C order */
} NpyArray;

typedef struct {
    const char *name;
    DType type;
    int rank;
    const int32_t *shape;
    const void *data;
    size_t nbytes;
} NpyOut;

int npy_is_numpy(const char *path);                 /* ends in .npy or .npz */
/* Every array of a .npz (in archive order), or the one array of a .npy. */
int npy_load(const char *path, NpyArray **arrays);
/* Element i as an integer; *exact = 0 for a float with a fraction. */
int64_t npy_get(const NpyArray *a, int64_t i, int *exact);
/* One array to a .npy, or several to a .npz (stored, as np.savez). */
void npy_save(const char *path, const NpyOut *outs, int n);

/* htc run: the raw file the driver reads for each graph input (NumPy files
   converted into dir, with a range check; one .npz supplies every input by
   name, else in order), and the raw files it writes for the outputs; then
   npy_run_finish turns those into the .npy / .npz files asked for. */
const char **npy_run_inputs(const Graph *g, const char *const *files, int n, const char *dir);
const char **npy_run_outputs(const Graph *g, const char *const *files, int n, const char *dir);
void npy_run_finish(const Graph *g, const char *const *files, int n, const char *const *raw);

/* htc run's input data, before the model is read: the range of the values
   for graph input `name` (the .npz entry of that name, else the index-th
   array); 0 when there is none. */
void npy_hint_files(const char *const *files, int n);
int npy_hint(const char *name, int index, int64_t *lo, int64_t *hi);

#endif
