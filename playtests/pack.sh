#!/usr/bin/env bash
# pack.sh DIR...: keeps a finished play as a transcript. The model's
# requests and replies go into DIR/relay.tar.xz (readable with
# `tar xJf relay.tar.xz`); the .json copies of requests and the relay's
# marker files go. chat.txt, commands.*, and the notes stay as they are.
set -euo pipefail
for dir in "$@"; do
  (
    cd "$dir"
    [ -e relay.tar.xz ] && { echo "$dir: packed already" >&2; exit 0; }
    files=$(find . -type f \( -name '*.request.txt' -o -name '*.reply*.json' -o -name '*.error.txt' -o -name '*.timeout.txt' \) | sort)
    [ -n "$files" ] && printf '%s\n' $files | tar cf - -T - | xz -9 > relay.tar.xz
    printf '%s\n' $files | xargs -r rm -f
    find . -type f \( -name '*.request.json' -o -name DONE -o -name STOP -o -name progress.txt -o -name '.reply.*' \) -delete
    find . -type d -empty -delete
  )
done
