#!/bin/sh
# shellcheck shell=sh
# rocmdoctor's capture for a host without python3: POSIX sh + tar, fed to `ssh HOST sh -s` on stdin.
# A template: rocmdoctor.fleet.remote.fallback_script() fills the three at-sign placeholders below (the
# raw-file globs under $ROCMDOCTOR_ROOT, one rd_cmd line per command, the seconds per command) with
# constants; no user input ends up in it. Prints a .tar.gz bundle on stdout. Exit 97: no scratch
# directory; 98: no tar.
R="${ROCMDOCTOR_ROOT:-}"
P=$(mktemp -d 2>/dev/null) || P="/tmp/rocmdoctor-capture.$$"
trap 'rm -rf "$P"' EXIT HUP INT TERM
T="$P/rocmdoctor-capture"
mkdir -p "$T/root" "$T/cmd" || exit 97
for pat in @FILES@; do
  for f in "$R"/$pat; do
    [ -f "$f" ] || continue
    rel=${f#"$R"/}
    mkdir -p "$T/root/$(dirname "$rel")" && cat "$f" > "$T/root/$rel" 2>/dev/null
  done
done
rd_cmd() {  # name command...
  n=$1; shift
  if [ -n "$R" ] && [ -f "$R/.cmd/$n.txt" ]; then cat "$R/.cmd/$n.txt" > "$T/cmd/$n.txt"; return; fi
  if [ -n "$R" ] && [ -f "$R/.cmd/$n.json" ]; then cat "$R/.cmd/$n.json" > "$T/cmd/$n.json"; return; fi
  command -v "$1" >/dev/null 2>&1 || { echo "$1" >> "$P/missing"; return; }
  if command -v timeout >/dev/null 2>&1; then timeout @CMD_TIMEOUT@ "$@" > "$T/cmd/$n.txt" 2> "$T/cmd/$n.stderr"
  else "$@" > "$T/cmd/$n.txt" 2> "$T/cmd/$n.stderr"; fi
  [ -s "$T/cmd/$n.stderr" ] || rm -f "$T/cmd/$n.stderr"
}
@COMMANDS@
h=$(cat "$R/etc/hostname" 2>/dev/null || uname -n 2>/dev/null)
h=$(printf '%s' "$h" | head -n 1 | tr -cd 'A-Za-z0-9._-')
{ printf '{"schema": "rocmdoctor-capture/1", "format": "rocmdoctor-capture/1", "tool": "rocmdoctor-sh-fallback", '
  printf '"hostname": "%s", "commands": [], ' "$h"
  printf '"errors": ["no python3 on this host: raw files only (sh fallback)"]}\n'; } > "$T/manifest.json"
command -v tar >/dev/null 2>&1 || { echo "rocmdoctor: no python3 and no tar on this host" >&2; exit 98; }
cd "$P" && tar -cf - rocmdoctor-capture | gzip -c
