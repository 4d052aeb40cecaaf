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

#ifdef __cplusplus
}
#endif

#endif /* AMP_RUNTIME_NONFINITEABI_H */
