#!/usr/bin/env bash
# Refits the sentence model (analysis/intent_weights.inc) on the dev split only: the generator's dev
# cases, the hand-written corpus's honest cases, half "a" of the honest real servers and red-team
# batches 01-18, each fitted after its first score (docs/detection.md says so). A red-team attack
# case says which case is an attack but not which sentence, so its sentences are fitted as one bag
# (multiple-instance learning: at least one of them is the attack). Hand-written honest sentences
# count 20 times and real servers' 10 times: the generator's million carrier sentences would
# otherwise decide alone what honest text looks like. The words of a sentence that asks something
# are terms too (--words: a word needs 5 cases); the flag cut-off lets through 0.02 % of the honest
# training sentences. The sealed split, red-team batches after 18 and real-server half "b" never
# reach the fitter.
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
sets=(--set "dev=$work/gen/dev" --set "corpus-honest=tests/corpus/benign")
for n in ${FIT_BATCHES:-01 02 03 04 05 06 07 08 09 10 11 12 13 14 15 16 17 18}; do sets+=(--set "rt$n=tests/corpus/redteam/batch-$n"); done
[[ -d "$cache/surfaces" ]] && sets+=(--servers "real-servers=$cache/surfaces")
"$build/bench/corpus_bench" --no-speed "${sets[@]}" --dump-features "$work/features.jsonl" >/dev/null
"$build/bench/fit_intent" --skip-group b ${FIT_OPTIONS:---l2 0.00001 --words 5 --word-l2 0.00001 --target-fpr 0.0002 --max-flag 0.995 --bag-share 0.5 --weight rt=20 --weight corpus-honest=20 --weight real=10} "$@" "$work/features.jsonl" >"$work/weights.inc"
mv "$work/weights.inc" analysis/intent_weights.inc
echo "fit_intent.sh: wrote analysis/intent_weights.inc; rebuild and run scripts/detection.sh to measure"
