/* runner_proto.h — the wire between fdwaved and a job's runner process (fdwave-runner,
 * perhaps under mpirun or srun): one JSON object per line on the runner's stdout, with
 * its type in "t", carrying what the engine's callbacks say; and plain words on its stdin
 * from the daemon. Both ends use this file, so the two cannot drift apart. Under
 * job-backend = slurm the same lines go to the Slurm job's stdout file on the shared file
 * system, and the daemon's words come through the run file's "control" file.
 *
 * runner -> daemon (stdout; only rank 0 of an MPI job writes):
 *   {"t":"hello","pid":P,"ranks":N}
 *   {"t":"progress","step","nsteps","percent","mpts","eta_s","elapsed_s",
 *    "devices":[{"device","z0","nz","mpts","mem_bytes"}], "change"?, "changed"?,
 *    "nshots"?, "shots_done"?, "shot"?}  (the last three for a survey)
 *   {"t":"snapshot","index","step","time","files":[names]}
 *   {"t":"log","level":0..3,"message"}
 *   {"t":"checkpoint","resumed":0|1,"step","nsteps","bytes","seconds"}
 *   {"t":"result","status":"ok"|"cancelled"|"error","code","field","message",
 *    "steps_done","elapsed_s","mpts","backend","max_abs_error","resumed_step",
 *    "checkpoint_step","suspended","peak_rss"}   -- the last line
 * daemon -> runner (stdin, rank 0): "cancel\n" (stop, the job ends cancelled) and
 *   "suspend\n" (write a checkpoint and stop: shutdown, preemption). The end of stdin
 *   means the daemon is gone: the runner suspends too, so a restarted daemon resumes the
 *   job from that checkpoint. */
#ifndef FDWD_RUNNER_PROTO_H
#define FDWD_RUNNER_PROTO_H

#include "fdwave/fdwave.h"

#include <jansson.h>
#include <stdint.h>

/* ---- runner side: one line each, as text (caller frees; NULL when out of memory) ---- */
char *proto_hello(long pid, int ranks);
char *proto_progress(const fdw_progress *p);
char *proto_snapshot(const fdw_snapshot_info *s);
char *proto_log(int level, const char *msg);
char *proto_checkpoint(const fdw_checkpoint_info *c);
/* st and err as fdw_run returned them; peak_rss in bytes. */
char *proto_result(fdw_status st, const fdw_error *err, const fdw_result *res,
                   uint64_t peak_rss);

/* ---- daemon side ---- */

/* A message read back. The strings and arrays point into `json`, which the caller frees
 * (proto_msg_free) once done with the message. */
typedef enum {
    PROTO_BAD = 0, PROTO_HELLO, PROTO_PROGRESS, PROTO_SNAPSHOT, PROTO_LOG, PROTO_CHECKPOINT,
    PROTO_RESULT
} proto_type;

#define PROTO_MAX_DEVICES 64
#define PROTO_MAX_FILES 512

typedef struct proto_msg {
    proto_type type;
    json_t *json;
    /* hello */
    long pid;
    int ranks;
    /* progress */
    fdw_progress progress;
    fdw_device_progress devices[PROTO_MAX_DEVICES];
    /* snapshot */
    fdw_snapshot_info snapshot;
    const char *files[PROTO_MAX_FILES];
    /* log */
    int level;
    const char *message;
    /* checkpoint */
    fdw_checkpoint_info checkpoint;
    /* result */
    fdw_status status;
    fdw_error error;
    fdw_result result;
    uint64_t peak_rss;
} proto_msg;

/* Decode one line (without its newline). Returns the type; PROTO_BAD (with why) for a line
 * that is not one of the messages above, whatever it holds. */
proto_type proto_decode(const char *line, size_t len, proto_msg *m, char *why, size_t whylen);
void proto_msg_free(proto_msg *m);

/* The words on stdin. */
#define PROTO_CANCEL "cancel"
#define PROTO_SUSPEND "suspend"

#endif
