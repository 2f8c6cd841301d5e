#!/usr/bin/env bash
# Formats the C++ sources with clang-format and the repository's .clang-format.
#   scripts/format.sh          formats every tracked C++ file in place
#   scripts/format.sh --check  changes nothing; lists the files that differ and exits 1 if any do
# Files: what git tracks (and untracked files it does not ignore) ending in .cpp/.hpp/.h/.cc,
# outside build folders. CLANG_FORMAT picks the binary (default clang-format).
set -euo pipefail
cd "$(dirname "$0")/.."
clang_format=${CLANG_FORMAT:-clang-format}
check=0
case "${1:-}" in
  --check) check=1 ;;
  "") ;;
  *) echo "usage: $0 [--check]" >&2; exit 2 ;;
esac
command -v "$clang_format" >/dev/null || { echo "format.sh: $clang_format not found (scripts/bootstrap.sh installs it)" >&2; exit 2; }

mapfile -t files < <(git ls-files --cached --others --exclude-standard -- '*.cpp' '*.hpp' '*.h' '*.cc' |
                     grep -Ev '^(build[^/]*|.*/build[^/]*)/' | while read -r f; do [[ -f $f ]] && echo "$f"; done)
((${#files[@]})) || exit 0

if ((check == 0)); then
  printf '%s\0' "${files[@]}" | xargs -0 "$clang_format" -i --style=file
  exit 0
fi
differ=()
for f in "${files[@]}"; do
  if ! "$clang_format" --style=file "$f" | cmp -s - "$f"; then differ+=("$f"); fi
done
if ((${#differ[@]})); then
  printf '%s\n' "${differ[@]}"
  echo "format.sh: ${#differ[@]} file(s) differ from .clang-format (run scripts/format.sh)" >&2
  exit 1
fi
