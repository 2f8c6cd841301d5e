#!/usr/bin/env bash
# The test command. Installs what is missing, then:
#   1. checks the C++ layout against .clang-format (scripts/format.sh --check: seconds, so first;
#      a file that differs fails the run), builds with warnings as errors and runs every test
#      through ctest (unit, end-to-end against real MCP peers, corpus, bench smoke);
#   2. rebuilds the libraries that scan bytes with the scalar fallback of base/byte_scan.hpp
#      (-DWARDEN_PORTABLE=ON, what a CPU without SSE2 gets) and runs their unit tests;
#   3. rebuilds with ASan+UBSan and runs the suite again;
#   4. rebuilds the concurrent parts with TSan and runs their tests (the relay, the audit writer,
#      the syslog shipper, the session and policy inspector in-process, the parallel scan);
#   5. runs every libFuzzer target for a bounded time.
# Between the build and ctest of the main stage, the real-server precision set (about 250 npm MCP
# servers, scripts/real-servers.sh) is enumerated live into its cache, bounded in time and reused
# when its entries have not changed; the detection gate then requires it. WARDEN_REAL_SERVERS=0
# skips that (the gate then measures the other sets only and says so).
# WARDEN_STAGES selects stages (default "main portable asan tsan fuzz"); extra arguments go to ctest.
# Disk: every build carries line tables only (-g1: what sanitizer and crash traces need; full -g
# made a run take 11 GB). Under CI (CI set, or WARDEN_PRUNE=1) each stage removes its build dir
# when it is done, the main stage also the real servers' node_modules (the surfaces stay in their
# cache), and ccache is bounded to 2 GB: a shared disk once ran out mid-run.
set -uo pipefail
cd "$(dirname "$0")/.."
./scripts/bootstrap.sh || exit 1

prune=0
[[ -n "${CI:-}" || "${WARDEN_PRUNE:-0}" == 1 ]] && prune=1
((prune)) && export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-2G}
slim=(-DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" -DCMAKE_CXX_FLAGS_DEBUG="-g1")

stages=${WARDEN_STAGES:-main portable asan tsan fuzz}
# The unit tests of the libraries that scan bytes (no Asio): the portable stage builds and runs these.
portable_tests="base_tests analysis_tests proxy_tests protocol_tests envelope_tests audit_tests policy_tests"
passed=0 failed=0 broken=()

# Runs ctest in a build dir and adds its counts to the totals.
run_ctest() {
  local dir=$1; shift
  local log
  log=$(mktemp)
  (cd "$dir" && ctest --output-on-failure --timeout 900 "$@") 2>&1 | tee "$log"
  local line total fails
  line=$(grep -E "tests passed, [0-9]+ tests failed out of [0-9]+" "$log" | tail -n 1)
  if [[ -z "$line" ]]; then
    broken+=("$dir: ctest gave no summary"); failed=$((failed + 1)); rm -f "$log"; return
  fi
  total=$(sed -E 's/.*out of ([0-9]+).*/\1/' <<<"$line")
  fails=$(sed -E 's/.*tests passed, ([0-9]+) tests failed.*/\1/' <<<"$line")
  passed=$((passed + total - fails)); failed=$((failed + fails))
  ((fails)) && broken+=("$dir: $fails failed")
  rm -f "$log"
}

build() {  # build DIR cmake-args...
  local dir=$1; shift
  if ! WARDEN_BUILD_DIR=$dir ./scripts/build.sh "${slim[@]}" "$@"; then
    broken+=("$dir: build failed"); failed=$((failed + 1)); return 1
  fi
}

# The formatter's check: cheap, so the main stage starts with it; a file that differs from
# .clang-format fails the run (the stage goes on, so one run reports everything).
format_check() {
  echo "=== format (scripts/format.sh --check)"
  if ./scripts/format.sh --check; then
    passed=$((passed + 1))
  else
    broken+=("format: files differ from .clang-format (run scripts/format.sh)"); failed=$((failed + 1))
  fi
  return 0
}

# The real-server set: enumerated (or reused from its cache) before the detection gate reads it.
real_servers() {
  [[ "${WARDEN_REAL_SERVERS:-1}" == 0 ]] && return 0
  echo "=== real servers (scripts/real-servers.sh enumerate)"
  if ./scripts/real-servers.sh enumerate; then
    export WARDEN_DETECTION_REQUIRE_SERVERS=1
  else
    broken+=("real servers: enumeration below its floor (see above)"); failed=$((failed + 1))
  fi
  return 0
}

for stage in $stages; do
  echo "=== stage: $stage"
  case $stage in
    main) format_check; build build -DWARDEN_WERROR=ON && real_servers && run_ctest build "$@" ;;
    portable) WARDEN_TARGETS="$portable_tests" build build-portable -DWARDEN_WERROR=ON -DWARDEN_PORTABLE=ON -DWARDEN_BENCH=OFF && \
                run_ctest build-portable -R "^(${portable_tests// /|})\$" "$@" ;;
    asan) build build-asan -DWARDEN_WERROR=ON -DWARDEN_SANITIZE=address,undefined -DCMAKE_BUILD_TYPE=Debug \
            -DWARDEN_BENCH=OFF && WARDEN_SANITIZED=asan ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 \
            UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 run_ctest build-asan -E 'bench|corpus|e2e_real_servers|detection_gate' "$@" ;;
    # The concurrent parts: the relay (e2e_stdio), the audit writer's thread and the syslog
    # shipper's (audit_tests, syslog_tests), the session and the policy inspector in-process
    # (session_tests, policy_inspector_tests), the parallel scan.
    tsan) WARDEN_TARGETS="mcp-warden proxy_tests transports_tests analysis_tests audit_tests syslog_tests session_tests policy_inspector_tests" \
            build build-tsan -DWARDEN_WERROR=ON -DWARDEN_SANITIZE=thread -DWARDEN_BENCH=OFF && \
            WARDEN_SANITIZED=tsan TSAN_OPTIONS=halt_on_error=1 \
            run_ctest build-tsan -R '^(e2e_stdio|proxy_tests|transports_tests|analysis_parallel_scan|audit_tests|syslog_tests|session_tests|policy_inspector_tests)$' "$@" ;;
    fuzz) if ./scripts/fuzz.sh "${WARDEN_FUZZ_SECONDS:-20}"; then passed=$((passed + 1));
          else broken+=("fuzz"); failed=$((failed + 1)); fi ;;
    *) echo "unknown stage $stage" >&2; exit 2 ;;
  esac
  if ((prune)); then
    case $stage in
      main) rm -rf build tests/real-servers/node_modules ;;
      fuzz) rm -rf build-fuzz ;;
      *) rm -rf "build-$stage" ;;
    esac
    echo "=== disk after $stage: $(df -h --output=avail . | tail -n 1 | tr -d ' ') free"
  fi
done

((${#broken[@]})) && printf 'FAILED: %s\n' "${broken[@]}"
echo "tests: $passed passed, $failed failed"
((failed == 0))
