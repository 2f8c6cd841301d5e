/* bench_c_relay -- COMMAND [ARGS...]: the thinnest possible stdio relay, the limit a proxy is
 * measured against. Spawns COMMAND and copies bytes both ways with read/write driven by poll():
 * no framing, no parsing, one buffer per direction. Non-blocking on every fd so that a full pipe
 * in one direction never stalls the other (a blocking relay can deadlock under pipelining). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

enum { buffer_size = 1 << 16 };

struct direction {
  int from, to;
  char buffer[buffer_size];
  size_t start, end; /* bytes [start, end) wait to be written */
  int eof;
};

static void set_nonblocking(int fd) { fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK); }

/* Reads what is there and writes what can be written; returns 0 when this direction is done. */
static int pump(struct direction *d, short revents_from, short revents_to) {
  if (d->start == d->end && !d->eof && (revents_from & (POLLIN | POLLHUP | POLLERR))) {
    ssize_t n = read(d->from, d->buffer, buffer_size);
    if (n > 0) {
      d->start = 0;
      d->end = (size_t)n;
    } else if (n == 0 || (errno != EAGAIN && errno != EINTR)) {
      d->eof = 1;
    }
  }
  if (d->start < d->end && (revents_to & POLLOUT || revents_from)) {
    ssize_t n = write(d->to, d->buffer + d->start, d->end - d->start);
    if (n > 0) d->start += (size_t)n;
    else if (n < 0 && errno != EAGAIN && errno != EINTR) return 0;
  }
  if (d->eof && d->start == d->end) return 0;
  return 1;
}

int main(int argc, char **argv) {
  int first = 1;
  if (first < argc && strcmp(argv[first], "--") == 0) ++first;
  if (first >= argc) {
    fputs("usage: bench_c_relay -- COMMAND [ARGS...]\n", stderr);
    return 2;
  }
  signal(SIGPIPE, SIG_IGN);
  int to_child[2], from_child[2];
  if (pipe2(to_child, O_CLOEXEC) != 0 || pipe2(from_child, O_CLOEXEC) != 0) return 1;
  pid_t pid = fork();
  if (pid < 0) return 1;
  if (pid == 0) {
    dup2(to_child[0], STDIN_FILENO);
    dup2(from_child[1], STDOUT_FILENO);
    execvp(argv[first], argv + first);
    _exit(127);
  }
  close(to_child[0]);
  close(from_child[1]);

  static struct direction up, down; /* client -> server, server -> client */
  up.from = STDIN_FILENO;
  up.to = to_child[1];
  down.from = from_child[0];
  down.to = STDOUT_FILENO;
  set_nonblocking(up.from);
  set_nonblocking(up.to);
  set_nonblocking(down.from);
  set_nonblocking(down.to);

  int up_open = 1, down_open = 1;
  while (down_open) {
    struct pollfd fds[4];
    /* Watch the source while its buffer is empty, the destination while it is not. */
    fds[0] = (struct pollfd){up_open && up.start == up.end && !up.eof ? up.from : -1, POLLIN, 0};
    fds[1] = (struct pollfd){up_open && up.start < up.end ? up.to : -1, POLLOUT, 0};
    fds[2] = (struct pollfd){down.start == down.end && !down.eof ? down.from : -1, POLLIN, 0};
    fds[3] = (struct pollfd){down.start < down.end ? down.to : -1, POLLOUT, 0};
    if (poll(fds, 4, -1) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    if (up_open && !pump(&up, fds[0].revents, fds[1].revents)) {
      up_open = 0;
      close(up.to); /* the server sees end of input */
    }
    if (!pump(&down, fds[2].revents, fds[3].revents)) down_open = 0;
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
