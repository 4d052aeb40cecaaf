/*===- StateNames.h - the training step's state names -------------*- C -*-===*\
|*                                                                            *|
|* The names of the training-step contract that both sides spell: the         *|
|* compiler gives them to the step's state (amp-autodiff and                  *|
|* amp-optimizer-step the learning rate, amp-loss-scaling the loss scales,    *|
|* amp-accumulate-gradients its hyper-parameter and counter), and the run     *|
|* side finds the tensors by them through amp_tensor (the model runtime,      *|
|* lib/Host). Part of the C ABI beside ModelABI.h's roles; the dialect's      *|
|* TrainingStep.h names them for the passes and checks there that its         *|
|* roles are numbered as amp_role.                                            *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef AMP_RUNTIME_STATENAMES_H
#define AMP_RUNTIME_STATENAMES_H

/* The learning rate (a hyper-parameter). */
#define AMP_STATE_LEARNING_RATE "lr"
/* Micro-batches per optimizer update (a hyper-parameter of a step that
   accumulates gradients). */
#define AMP_STATE_ACCUMULATE "accumulate"
/* The micro-batch counter of a step that accumulates gradients (optimizer
   state, 0-d f32): back at 0 when a call completed an update. */
#define AMP_STATE_MICRO_STEP "grad_accum.micro_step"
/* The loss scale of the first loss (scaler state, 0-d f32); that of loss
   k > 0 is "loss<k>." AMP_STATE_LOSS_SCALE. A name ending in it is a loss
   scale. */
#define AMP_STATE_LOSS_SCALE "loss_scale"

#endif /* AMP_RUNTIME_STATENAMES_H */
