#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# bench/request-loop.sh: the server benchmark without the network (issue 50): --threads
# threads (default 2) serving bench/java/RequestWork's string-heavy requests back to back
# (bench/java/RequestLoop), requests a second after a warm-up, against no agent.
# bench/server.sh --workloads loop with the same options (see bench/server.sh --help):
#
#   bench/request-loop.sh [--jdk DIR]... [--runs N] [--warmup S] [--measure S] [--modes "..."]
#                         [--asprof LIB] [--threads N] [--out FILE]
exec "$(dirname "$0")/server.sh" --workloads loop --out build/bench/request-loop.md "$@"
