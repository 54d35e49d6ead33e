/* lifeline: a pipe whose write end only the command that runs a pipeline
 * holds.  When that command ends, however it ends (SIGKILL included), the
 * kernel closes the write end and the read end, which the stages inherit,
 * hangs up: a stage that would place output after that point (the command
 * gone, nobody left to verify it or say what happened) can see so and
 * place nothing.
 * The common/ rule: library code returns a status and never prints or exits. */
#ifndef TR_LIFELINE_H
#define TR_LIFELINE_H

#include <stddef.h>

/* 0 when fd is open and is the read end of a pipe or FIFO; -1 with errno
 * set otherwise: EBADF (not open), EINVAL (not a pipe or FIFO, or open for
 * writing: a stage holding a write end would keep its own line alive). */
int lifeline_check(int fd);
/* 1 when one of the n lifelines has hung up (its writers are all gone),
 * 0 while every one is held.  Never blocks: one poll(2) with no timeout. */
int lifeline_lost(const int *fds, size_t n);

#endif
