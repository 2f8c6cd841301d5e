#!/usr/bin/env bash
# The detection benchmark and its gate: precision and recall per set and per attack class.
#   dev, sealed   the generator's two splits (tests/corpus/generator; rules are tuned on dev only)
#   corpus        the hand-written corpus (tests/corpus/{malicious,benign})
#   redteam-*     the blind red-team batches (tests/corpus/redteam/batch-NN)
#   real-servers  the honest npm servers enumerated live (scripts/real-servers.sh)
# Exit 1 when a gate fails. WARDEN_DETECTION_REQUIRE_SERVERS=1 makes a missing real-server cache a
# failure (CI sets it); extra arguments go to corpus_bench (e.g. --show-errors dev).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${WARDEN_BUILD_DIR:-build}
cache=${WARDEN_REAL_SERVERS_CACHE:-$HOME/.cache/mcp-warden/real-servers}
bench=$build/bench/corpus_bench
[[ -x "$bench" ]] || { echo "detection.sh: $bench is not built" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
carriers=()
[[ -d "$cache/surfaces" ]] && carriers=(--carriers "$cache/surfaces")
python3 tests/corpus/generator/generate.py --out "$work/gen" "${carriers[@]}" >/dev/null
# The floors, per set: precision and recall, set a little under the figures of docs/detection.md
# so that a real drop fails while run-to-run noise (none: everything is deterministic) cannot.
# With the real-server cache the generator's carriers are real servers (their honest text is in
# every generated case), so dev and sealed have two sets of floors. A real-carrier attack also
# counts as found when its carrier's own false positive flags it: removing carrier false
# positives lowers sealed recall and raises its precision (2026-12-06: 0.940/0.604 -> 0.959/0.587).
if [[ -d "$cache/surfaces" ]]; then dev_floor=0.98:0.90 sealed_floor=0.97:0.61; else dev_floor=0.99:0.91 sealed_floor=0.99:0.63; fi
args=(--no-speed
      --set "dev=$work/gen/dev" --gate "dev:${GATE_DEV:-$dev_floor}"
      --set "sealed=$work/gen/sealed" --gate "sealed:${GATE_SEALED:-$sealed_floor}"
      --set "corpus=tests/corpus/malicious,tests/corpus/benign" --gate "corpus:${GATE_CORPUS:-0.99:0.97}")
# Each batch's floor sits a little under its figure in docs/detection.md (a new batch: the default).
declare -A floors=([batch-01]=0.98:0.90 [batch-02]=0.98:0.90 [batch-03]=0.98:0.83 [batch-04]=0.95:0.83
  [batch-05]=0.95:0.74 [batch-06]=0.97:0.82 [batch-07]=0.95:0.78 [batch-08]=0.96:0.83 [batch-09]=0.97:0.87
  [batch-10]=0.98:0.72 [batch-11]=0.96:0.72 [batch-12]=0.98:0.81 [batch-13]=0.97:0.78 [batch-14]=0.96:0.83
  [batch-15]=0.98:0.79 [batch-16]=0.95:0.78 [batch-17]=0.97:0.80 [batch-18]=0.96:0.77 [batch-19]=0.94:0.79
  [batch-20]=0.97:0.83 [batch-21]=0.96:0.84 [batch-22]=0.96:0.72 [batch-23]=0.95:0.83 [batch-24]=0.96:0.66)
for batch in tests/corpus/redteam/batch-*/; do
  [[ -d "$batch" ]] || continue
  name=redteam-$(basename "$batch")
  floor=${floors[$(basename "$batch")]:-0.90:0.65}
  args+=(--set "$name=$batch" --gate "$name:${GATE_REDTEAM:-$floor}")
done
if [[ -d "$cache/surfaces" ]]; then
  # Today's figures as the floor (issue 27's target is 0 servers and 0.5 %: the share is met, the servers not; see
  # docs/detection.md); a regression fails.
  args+=(--servers "real-servers=$cache/surfaces" --server-gate "real-servers:${GATE_SERVERS:-0.0040:6}")
elif [[ "${WARDEN_DETECTION_REQUIRE_SERVERS:-0}" == 1 ]]; then
  echo "detection.sh: no real-server surfaces in $cache (run scripts/real-servers.sh enumerate)" >&2
  exit 1
else
  echo "detection.sh: no real-server surfaces in $cache: that set is not measured" >&2
fi
"$bench" "${args[@]}" "$@"
