#!/usr/bin/env bash
# Creates (once) and caches the venv of the torch2 tests: current PyPI
# PyTorch 2.x with numpy 2.x, onnx and onnxscript, and, when they install,
# transformers and timm (test/lit.cfg.py: feature torch2, %amp_python2).
# The venv is at AMP_TORCH2_VENV (default ~/.cache/amp/torch2-venv) and is
# made by /usr/bin/python3 -m venv: amp's extension is built for that
# Python. It is complete when its stamp is written, after the packages
# import; a half-finished install is completed on the next run, and a
# complete venv is left alone (delete it to move to a newer PyTorch). The
# download is about 3 GB (PyTorch's CUDA libraries). The wheels are kept in
# AMP_TORCH2_WHEELS (default ~/.cache/amp/torch2-wheels): pip's own cache
# keeps nothing from an index that sends no caching headers (as this
# project's machines see PyPI), so with only that a rerun after deleting
# the venv would download it all again; with the wheels kept it downloads
# nothing large, and works offline. Exits non-zero, saying why, when the
# venv cannot be made (no network and no wheels).
set -euo pipefail

venv="${AMP_TORCH2_VENV:-$HOME/.cache/amp/torch2-venv}"
venv="${venv%/}"
wheels="${AMP_TORCH2_WHEELS:-$HOME/.cache/amp/torch2-wheels}"
base=/usr/bin/python3
stamp="$venv/.amp-torch2-complete"
required=("torch>=2,<3" "numpy>=2,<3" onnx onnxscript)
# Real models for the tests when available; the suite does not need them.
optional=(transformers timm)
spec="required: ${required[*]}; optional: ${optional[*]}"
python="$venv/bin/python"

say() { echo "torch2-venv: $*"; }
fail() {
  echo "torch2-venv: error: $*" >&2
  echo "torch2-venv: the torch2 tests (test/python under %amp_python2) will" \
    "fail until this succeeds; AMP_NO_TORCH2=1 skips them" >&2
  exit 1
}

# The fast path: a stamp for the same package list and a Python that runs.
complete() {
  [ -f "$stamp" ] && [ "$(head -n 1 "$stamp")" = "$spec" ] &&
    "$python" -c "" 2>/dev/null
}
if complete; then
  say "$venv is complete ($(sed -n 2p "$stamp"))"
  exit 0
fi

[ -x "$base" ] || fail "$base is missing (scripts/setup.sh installs python3)"
mkdir -p "$(dirname "$venv")"
# One install at a time (scripts/test.sh and a developer's run).
exec 9>"$venv.lock"
flock 9
if complete; then
  say "$venv is complete ($(sed -n 2p "$stamp"))"
  exit 0
fi
rm -f "$stamp"

base_version="$("$base" -c 'import sys; print("%d.%d" % sys.version_info[:2])')"

# Whether the venv's Python runs and is the version amp's extension is built
# for (a venv of another Python cannot import it).
usable() {
  [ "$("$python" -c 'import sys; print("%d.%d" % sys.version_info[:2])' \
    2>/dev/null)" = "$base_version" ]
}

# Whether the required packages import, in the generations the tests are for.
check_required() {
  "$python" - <<'EOF'
import numpy, onnx, onnxscript, torch
assert torch.__version__.split(".")[0] == "2", torch.__version__
assert numpy.__version__.split(".")[0] == "2", numpy.__version__
EOF
}

create() {
  say "creating $venv with $base -m venv (Python $base_version)"
  "$base" -m venv "$venv" ||
    fail "$base -m venv failed (Debian: apt-get install python3-venv, or scripts/setup.sh)"
}

# Installs the packages (pip arguments) from $wheels, after downloading
# there what is missing (pip download takes a file already there as is).
pip_install() {
  mkdir -p "$wheels"
  say "downloading into $wheels what it lacks of: $*"
  if ! "$python" -m pip download --progress-bar off -d "$wheels" "$@"; then
    say "pip download failed; installing from $wheels alone"
  fi
  say "installing into $venv from $wheels: $*"
  "$python" -m pip install --progress-bar off --no-index \
    --find-links "$wheels" "$@"
}

install_required() {
  pip_install "${required[@]}" ||
    fail "pip could not install ${required[*]} into $venv" \
      "(is PyPI reachable? see pip's messages above)"
}

fresh=0
if [ -e "$venv" ]; then
  if [ ! -f "$venv/pyvenv.cfg" ]; then
    fail "$venv exists and is not a venv; move it or set AMP_TORCH2_VENV"
  fi
  if ! usable; then
    say "$venv has no working Python $base_version: recreating it"
    rm -rf "$venv"
  fi
fi
if [ ! -e "$venv" ]; then
  create
  fresh=1
fi

if [ "$fresh" = 0 ] && check_required 2>/dev/null; then
  say "$venv already has ${required[*]}"
else
  [ "$fresh" = 1 ] || say "completing $venv"
  install_required
  if ! check_required; then
    [ "$fresh" = 0 ] || fail "the packages installed into $venv do not import"
    # Files left broken by an interrupted install: start again (the kept
    # wheels make this quick).
    say "the packages in $venv do not import: recreating it"
    rm -rf "$venv"
    create
    install_required
    check_required || fail "the packages installed into $venv do not import"
  fi
fi

# The optional packages must not move torch or numpy (public versions: the
# wheel's torch says 2.x.y+cu132, which no index offers).
versions="$("$python" -c 'import numpy, torch; print("torch==%s numpy==%s" % (torch.__version__.split("+")[0], numpy.__version__))')"
missing=()
for pkg in "${optional[@]}"; do
  "$python" -c "import $pkg" 2>/dev/null || missing+=("$pkg")
done
if [ ${#missing[@]} -gt 0 ]; then
  say "installing ${missing[*]} (optional) with $versions"
  constraints="$venv/.amp-torch2-constraints.txt"
  tr ' ' '\n' <<<"$versions" >"$constraints"
  if ! pip_install -c "$constraints" "${missing[@]}"; then
    say "warning: ${missing[*]} did not install: the tests that need them" \
      "(REQUIRES: torch2-transformers, torch2-timm) are UNSUPPORTED;" \
      "to try again: rm $stamp && $0"
  fi
fi

installed="$("$python" - <<'EOF'
import importlib
found = []
for name in ["torch", "numpy", "onnx", "onnxscript", "transformers", "timm"]:
    try:
        found.append("%s %s" % (name, importlib.import_module(name).__version__))
    except Exception:
        found.append("%s missing" % name)
print(", ".join(found))
EOF
)"
printf '%s\n%s\n' "$spec" "$installed" >"$stamp.tmp"
mv "$stamp.tmp" "$stamp"
say "$venv is complete ($installed)"
