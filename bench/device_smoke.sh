#!/usr/bin/env bash
# GPU proof for `rocmdoctor smoke` on a lent accelerator machine (written for one NVIDIA H200; the same
# programs run unchanged on ROCm through the shared torch.cuda API). Run from the repository root:
#
#     OUT=/some/dir bash bench/device_smoke.sh
#
# Needs: python3 with a GPU torch importable (install it before calling this script); triton is used when
# present (the CUDA torch wheels pull it in). Nothing else: when typer/rich are missing the stdlib-only
# entry point `python -m rocmdoctor.smoke` is used instead of the CLI (same runner, same JSON).
# Writes under $OUT: env.txt, smoke-l1.json, smoke-l2.json, smoke-l2.txt (terminal rendering, when rich is
# there), smoke-l3.json (short level 3), fault-wrong.json, fault-hang.json, fault-abort.json, and *.err
# (stderr of each run). Budget: about 3-4 minutes on one H200, each step capped by `timeout`.
set -u
OUT="${OUT:?set OUT to the output directory}"
mkdir -p "$OUT"
export PYTHONPATH="$PWD${PYTHONPATH:+:$PYTHONPATH}"
export NO_COLOR=1
PY="${PYTHON:-python3}"

if ! "$PY" -c 'import torch' 2>"$OUT/torch-import.err"; then
    echo "torch is not importable with $PY; install a GPU torch first" | tee "$OUT/env.txt"
    exit 1
fi

{
    date -u
    nvidia-smi -L 2>&1 || true
    command -v rocm-smi >/dev/null && rocm-smi --showproductname 2>&1
    "$PY" - <<'EOF'
import importlib.util, sys, torch
print("python", sys.version.split()[0], sys.executable)
print("torch", torch.__version__, "cuda", torch.version.cuda, "hip", getattr(torch.version, "hip", None))
print("available", torch.cuda.is_available(), "count", torch.cuda.device_count())
print("arch_list", torch.cuda.get_arch_list() if torch.cuda.is_available() else [])
for i in range(torch.cuda.device_count()):
    p = torch.cuda.get_device_properties(i)
    print("device", i, p.name, f"sm_{p.major}{p.minor}", getattr(p, "gcnArchName", None), p.total_memory)
print("triton", importlib.util.find_spec("triton") is not None)
print("typer+rich", all(importlib.util.find_spec(m) is not None for m in ("typer", "rich")))
EOF
} >"$OUT/env.txt" 2>&1

if "$PY" -c 'import typer, rich' 2>/dev/null; then
    SMOKE=("$PY" -m rocmdoctor smoke)
else
    SMOKE=("$PY" -m rocmdoctor.smoke)
fi

step() {  # step NAME SECONDS ARGS... : one run, JSON to $OUT/NAME.json, stderr to $OUT/NAME.err, rc recorded
    local name="$1" secs="$2"
    shift 2
    local t0=$SECONDS
    timeout -k 5 "$secs" "$@" >"$OUT/$name.json" 2>"$OUT/$name.err"
    local rc=$?
    echo "$name rc=$rc wall=$((SECONDS - t0))s" | tee -a "$OUT/steps.txt"
}

step smoke-l1 120 "${SMOKE[@]}" --level 1 --json
step smoke-l2 300 "${SMOKE[@]}" --level 2 --json
if [ "${SMOKE[2]}" = "rocmdoctor" ]; then
    timeout -k 5 300 "${SMOKE[@]}" --level 2 -v >"$OUT/smoke-l2.txt" 2>&1
    echo "smoke-l2.txt rc=$?" | tee -a "$OUT/steps.txt"
fi
step smoke-l3 300 "${SMOKE[@]}" --level 3 --duration 10 --json
# Faults injected inside the real program, on the GPU: a flipped GEMM element, a hang killed at its
# timeout (expect smoke.timeout and the wall time close to --timeout), and the exact hipErrorNoBinaryForGpu abort.
ROCMDOCTOR_SMOKE_FAULT=wrong-result step fault-wrong 120 "${SMOKE[@]}" --level 1 --devices 0 --json
ROCMDOCTOR_SMOKE_FAULT=hang step fault-hang 120 "${SMOKE[@]}" --level 1 --devices 0 --timeout 15 --json
ROCMDOCTOR_SMOKE_FAULT=abort-nobinary step fault-abort 120 "${SMOKE[@]}" --level 1 --devices 0 --json

# One-line summary per run: exit code, then every non-ok finding.
"$PY" - "$OUT" <<'EOF' | tee "$OUT/summary.txt"
import json, pathlib, sys
out = pathlib.Path(sys.argv[1])
for f in sorted(out.glob("*.json")):
    try:
        doc = json.loads(f.read_text())
    except ValueError as exc:
        print(f"{f.name}: not JSON ({exc})")
        continue
    bad = [(x["id"], x["severity"]) for x in doc.get("findings", []) if x["severity"] not in ("ok", "skip")]
    devs = [(d["key"], d["status"], {c["check"]: c["value"] for c in d["checks"] if c["value"] is not None})
            for d in doc.get("devices", [])]
    print(f"{f.name}: {doc.get('elapsed_s')} s; not ok: {bad}")
    for d in devs:
        print("   ", d)
EOF
