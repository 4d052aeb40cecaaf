/*===- NonfiniteABI.h - the instrumented step's records ------------*- C -*-===*\
|*                                                                            *|
|* What a library compiled with amp-compile --instrument-nonfinite adds to    *|
|* the model ABI (docs/Debugging.md): a buffer state tensor of records, the   *|
|* range of every checked value, written by every step, and the table of the *|
|* checked ops. Shared by the pass that instruments the step, the glue and   *|
|* amp-run.                                                                  *|
\*===----------------------------------------------------------------------===*/

#ifndef AMP_RUNTIME_NONFINITEABI_H
#define AMP_RUNTIME_NONFINITEABI_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The amp.name of the records' buffer state tensor. */
#define AMP_NONFINITE_STATS_NAME "amp.nonfinite.stats"

/* The records: one row per checked value (a result or an operand of a
   checked op, or a result of the op's f32 copy), with these f32 columns.
   Maxima propagate NaN, so a value holds inf or NaN exactly when a column
   of its row is not finite. */
typedef enum amp_nonfinite_column {
  AMP_NONFINITE_MAX = 0,     /* the greatest element */
  AMP_NONFINITE_NEG_MIN = 1, /* minus the least element */
  AMP_NONFINITE_COLUMNS = 2
} amp_nonfinite_column;

/* The library's site table: one line per checked op ("site") in program
   order, with tab-separated fields: kind, name, location, precision, then
   the record rows (comma-separated) of its results, of its operands and of
   the results of its f32 copy (empty when the op has no f32 form). Only in
   instrumented libraries. */
const char *amp_nonfinite_sites(void);

/* The amp-compile arguments that rebuild a library (the model as an
   absolute path, then the options that shaped the step), one per call;
   null past the last. Index 0 is the model's content hash (hex). */
const char *amp_build_argument(int32_t index);

/* Index range checks (amp-check-indices, in every library). An entry point
   (the training step, the forward model) with ops that read through
   integer indices returns one more result, named AMP_INDEX_RANGES_NAME
   (role output, i64): a row of AMP_INDEX_COLUMNS per checked index tensor
   ("site"), the least and the greatest index it held and the valid range
   [lower, upper). A training step with an index out of range skips its
   updates: every state tensor keeps its value, as on an overflow. */
#define AMP_INDEX_RANGES_NAME "amp.index_ranges"

typedef enum amp_index_column {
  AMP_INDEX_MIN = 0,
  AMP_INDEX_MAX = 1,
  AMP_INDEX_LOWER = 2,
  AMP_INDEX_UPPER = 3,
  AMP_INDEX_COLUMNS = 4
} amp_index_column;

/* The sites of entry point `entry` (0: the training step, 1: the forward
   model), one line per row of its AMP_INDEX_RANGES_NAME result: the op's
   kind and its location, tab-separated. Null when it has none. */
const char *amp_index_sites(int32_t entry);

#ifdef __cplusplus
}
#endif

#endif /* AMP_RUNTIME_NONFINITEABI_H */
