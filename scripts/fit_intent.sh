#!/usr/bin/env bash
# Refits the sentence model (analysis/intent_weights.inc) on the dev split only: the generator's dev
# cases, the hand-written corpus's honest cases, half "a" of the honest real servers and the honest
# sentences of red-team batch-01 (added after that batch's first score; docs/detection.md says so).
# The sealed split, later red-team batches and real-server half "b" never reach the fitter.
#   scripts/fit_intent.sh [fit_intent options...]    (defaults: the options the committed weights used)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${WARDEN_BUILD_DIR:-build}
cache=${WARDEN_REAL_SERVERS_CACHE:-$HOME/.cache/mcp-warden/real-servers}
WARDEN_TARGETS="corpus_bench fit_intent" ./scripts/build.sh >/dev/null
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
carriers=()
[[ -d "$cache/surfaces" ]] && carriers=(--carriers "$cache/surfaces")
python3 tests/corpus/generator/generate.py --out "$work/gen" "${carriers[@]}" >/dev/null
sets=(--set "dev=$work/gen/dev" --set "corpus-honest=tests/corpus/benign" --set "rt01=tests/corpus/redteam/batch-01" --set "rt02=tests/corpus/redteam/batch-02")
[[ -d "$cache/surfaces" ]] && sets+=(--servers "real-servers=$cache/surfaces")
"$build/bench/corpus_bench" --no-speed "${sets[@]}" --dump-features "$work/features.jsonl" >/dev/null
"$build/bench/fit_intent" --skip-group b ${FIT_OPTIONS:---l2 0.00001 --target-fpr 0.0015} "$@" "$work/features.jsonl" >"$work/weights.inc"
mv "$work/weights.inc" analysis/intent_weights.inc
echo "fit_intent.sh: wrote analysis/intent_weights.inc; rebuild and run scripts/detection.sh to measure"
