/* ckpt_gate.h — holds checkpoint writes where a test wants them, without timing: a test
 * program that links ckpt_gate.c gets its fsync in place of the C library's (the
 * engine's included, as diskfull_shim.c replaces write for the daemon's tests), and a
 * held fsync is that of a checkpoint file (a name "ckpt-*.tmp": its bytes are all
 * written, it is not yet renamed into place). So a test can cancel, suspend or kill a run
 * while a write is surely in flight, and let the write finish once the run waits for it:
 * the engine logs "... waits for the write of step N" before it blocks on the writer
 * (ckpt_gate_on_log lets a held write go on seeing that line). Unarmed, fsync is fsync. */
#ifndef FDW_TEST_CKPT_GATE_H
#define FDW_TEST_CKPT_GATE_H

#include <sys/types.h>

/* Hold the fsync of the checkpoint files after the next `skip` ones: n of them (n < 0:
 * every one). */
void ckpt_gate_hold(int skip, int n);

/* Block until a checkpoint file's fsync is held (at once when one is). */
void ckpt_gate_wait_held(void);

/* Let one held fsync go on (or the next one that would be held: a release may come while
 * its write is still putting bytes). */
void ckpt_gate_release(void);

/* A log line of the run: a release when it says the run waits for a write. */
void ckpt_gate_on_log(const char *msg);

/* A callback for fdw_callbacks.cancelled or .suspend whose user is a ckpt_watch
 * (ckpt_util.h): 0 until its stop_at-th poll, then, once a write is held, 1 (cancelled is
 * polled before each step, so its call k comes with k - 1 steps done; suspend after). */
int ckpt_gate_stop(void *user);

/* The tests' unlink notes the thread of each removal of a finished checkpoint file
 * ("ckpt-*.r*", not a temporary): forget those noted; the first max of them into tids,
 * their count. */
void ckpt_gate_unlinks_reset(void);
int ckpt_gate_unlinks(pid_t *tids, int max);

#endif
