#!/usr/bin/env bash
# Run a command on a loaded machine: start BUSY busy processes (default 16: eight per core
# on the 2-core CI machine, load average about 18), run the command, stop them, and exit
# with the command's status. The test command must pass under it (issue 35): no test may
# judge clock time, and every wait's budget must hold on such a machine.
#
#   tools/load.sh                          # the README's test command (tox run-parallel)
#   tools/load.sh pytest -n auto           # any command
#   BUSY=8 tools/load.sh pytest -n 2 -m 'not heavy'
#   APART=1 tools/load.sh                  # the busy loops in a session of their own
#
# The busy processes are plain shell loops (no memory, no I/O), started at the same
# priority as the command, so they take CPU as other jobs on a shared machine would.
# How much CPU the command gets depends on the scheduler's autogroups
# (/proc/sys/kernel/sched_autogroup_enabled, printed below):
# - 0 (off): every runnable process gets an equal share. With BUSY=16 the command's three
#   or four running processes get about a fifth of two cores: the harshest case, and the
#   one the test command was proven under (docs/maintaining.md). Turn them off as root:
#   echo 0 > /proc/sys/kernel/sched_autogroup_enabled
# - 1 (on, most desktops): Linux shares the CPU equally between sessions first, then
#   between a session's processes. The loops share the command's session by default
#   (APART=1: a session of their own, as another CI job would be), but every adapter the
#   runner starts leads a session of its own (so that it can be killed with its children),
#   and so escapes the loops: the command gets far more than its share of the load.
set -euo pipefail
cd "$(dirname "$0")/.."

busy=${BUSY:-16}
(($# > 0)) || set -- python3 -m tox run-parallel

pids=()
stop_busy() {
  ((${#pids[@]})) && kill "${pids[@]}" 2>/dev/null || true
  wait "${pids[@]}" 2>/dev/null || true
}
trap stop_busy EXIT INT TERM

if [[ ${APART:-0} == 1 ]]; then
  # One session for all the loops (a session each would make BUSY sessions, each as
  # heavy as the command's). A background job here is no process group leader, so setsid
  # starts the session without forking: $! is that shell, which stop_busy kills, and its
  # trap takes the loops (its process group) with it.
  setsid bash -c 'trap "kill 0" TERM; for ((i = 0; i < $1; i++)); do
      (while :; do :; done) &
    done; wait' load-apart "$busy" &
  pids+=($!)
else
  for ((i = 0; i < busy; i++)); do
    (while :; do :; done) &
    pids+=($!)
  done
fi
where=$([[ ${APART:-0} == 1 ]] && echo "in a session of their own" || echo "in this session")
groups=$(cat /proc/sys/kernel/sched_autogroup_enabled 2>/dev/null || echo unknown)
echo "load.sh: $busy busy processes started $where; autogroups $groups;" \
  "load average $(cut -d' ' -f1-3 /proc/loadavg)" >&2

started=$SECONDS
status=0
"$@" || status=$?
echo "load.sh: '$*' ended with status $status after $((SECONDS - started)) s;" \
  "load average $(cut -d' ' -f1-3 /proc/loadavg)" >&2
exit "$status"
