#!/usr/bin/env bash
# bench/ab_templates_at.sh REV NAME: the templates of commit REV as
# bench/ab_templates/NAME, a version for bench/template_ab.py. Run here, before a device
# call that carries the folder (the device's copy of the tree has no git history);
# bench/ab_templates/ is ignored by git.
set -euo pipefail
cd "$(dirname "$0")/.."
rev=$1 name=$2
dest=bench/ab_templates/$name
rm -rf "$dest" && mkdir -p "$dest"
git archive "$rev" templates | tar -x -C "$dest" --strip-components=1
echo "$dest: $(ls "$dest" | wc -l) templates of $rev"
