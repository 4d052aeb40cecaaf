/*===- NonfiniteABI.h - the instrumented step's records ------------*- C -*-===*\
|*                                                                            *|
|* What a library compiled with amp-compile --instrument-nonfinite adds to    *|
|* the model ABI (docs/Debugging.md): a buffer state tensor with one row of   *|
|* AMP_NONFINITE_COLUMNS f32 values per checked op ("site") in program order, *|
|* written by every step, and the table of the sites. Shared by the pass      *|
|* that instruments the step, the glue and amp-run.                           *|
\*===----------------------------------------------------------------------===*/

#ifndef AMP_RUNTIME_NONFINITEABI_H
#define AMP_RUNTIME_NONFINITEABI_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The amp.name of the records' buffer state tensor. */
#define AMP_NONFINITE_STATS_NAME "amp.nonfinite.stats"

/* The columns of a site's row. The flags are sums of x - x over the values
   they check: 0 when all are finite, NaN otherwise. */
typedef enum amp_nonfinite_column {
  AMP_NONFINITE_RESULT_FLAG = 0,  /* over the op's float results */
  AMP_NONFINITE_OPERAND_FLAG = 1, /* over its float operands */
  AMP_NONFINITE_OPERAND_MIN = 2,  /* the least float operand element */
  AMP_NONFINITE_OPERAND_MAX = 3,  /* the greatest float operand element */
  /* Over the results of the op computed in f32 on the widened operands;
     AMP_NONFINITE_NOT_EVALUATED when the op has no f32 form. */
  AMP_NONFINITE_F32_FLAG = 4,
  AMP_NONFINITE_COLUMNS = 5
} amp_nonfinite_column;

#define AMP_NONFINITE_NOT_EVALUATED 1.0f

/* The library's site table: one line per site, in row order, with the
   fields kind, name, location and precision separated by tabs. Only in
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
