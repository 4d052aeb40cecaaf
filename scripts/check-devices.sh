#!/usr/bin/env bash
# Fails (and, as root, repairs) when /dev/null or /dev/full is no longer the
# character device it must be. A tool that renames a temporary file over an
# output replaces such a device with a regular file when it runs as root
# (issue 11, 0); scripts/test.sh and scripts/test-sanitizers.sh run this
# after the tests so that such a regression fails CI instead of breaking the
# machine for what runs next.
set -uo pipefail
status=0
for device in null:1:3 full:1:7; do
  IFS=: read -r name major minor <<< "$device"
  path=/dev/$name
  if [ -c "$path" ] && [ ! -L "$path" ] &&
     [ "$(stat -c '%t:%T' "$path")" = "$(printf '%x:%x' "$major" "$minor")" ]; then
    continue
  fi
  echo "check-devices: $path is no longer a character device ($major, $minor):" \
    "a test wrote to it through a temporary file" >&2
  status=1
  if [ "$(id -u)" -eq 0 ]; then
    rm -f "$path" && mknod -m 666 "$path" c "$major" "$minor" &&
      echo "check-devices: restored $path" >&2
  fi
done
exit $status
