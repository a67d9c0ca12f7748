#!/usr/bin/env bash
# Run a command on a loaded machine: start BUSY busy processes (default 16: eight per core
# on the 2-core CI machine, load average about 18), run the command, stop them, and exit
# with the command's status. The test command must pass under it (issue 35): no test may
# judge clock time, and every wait's budget must hold on such a machine.
#
#   tools/load.sh                          # the README's test command (tox run-parallel)
#   tools/load.sh pytest -n auto           # any command
#   BUSY=8 tools/load.sh pytest -n 2 -m 'not heavy'
#
# The busy processes are plain shell loops (no memory, no I/O), started at the same
# priority as the command, so they take CPU as other jobs on a shared machine would.
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

for ((i = 0; i < busy; i++)); do
  (while :; do :; done) &
  pids+=($!)
done
echo "load.sh: $busy busy processes started; load average $(cut -d' ' -f1-3 /proc/loadavg)" >&2

started=$SECONDS
status=0
"$@" || status=$?
echo "load.sh: '$*' ended with status $status after $((SECONDS - started)) s;" \
  "load average $(cut -d' ' -f1-3 /proc/loadavg)" >&2
exit "$status"
