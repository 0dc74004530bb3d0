# MODE=resnet50 of bench/run_on_gpu_machine.sh (sourced after the tests, with
# its stamp and merge): ResNet-50 layer by layer and the memory-history A/B.
#  1. Fresh processes: the coopmat peak, the 4 headline convolutions (every
#     path and auto) and each distinct ResNet-50 convolution (auto), each in
#     a process of its own, as bench/RESULTS.md's figures: in one process the
#     later cases measured up to 4x slower (the GPU's idle clocks:
#     bench/results/idle_clocks.md), which the per-layer table must not mix
#     in. -> $OUT/resnet50_fresh.json
#  2. compare_torch.py on those: per-layer tables against torch._int_mm, the
#     network totals, $OUT/resnet50.png. -> $OUT/compare_resnet50.md
#  3. One process each, auto, every convolution: "one" with nothing before;
#     "churn" after --churn-gib $RESNET50_CHURN_GIB; "datamove" after the
#     data-movement cases (the original reproducer); the churn followed by
#     5 s of idle GPU, and the idle GPU with a long warm-up per case.
#     -> $OUT/resnet50_<label>.json, and compare_torch.py --history-only
#     puts them side by side with 1. -> $OUT/history_resnet50.md
# RESNET50_DEADLINE_S (seconds from the script's start, default 540) bounds
# it: the ResNet cases of 1 start only while it leaves RESNET50_COMPARE_S (75)
# for 2, a run of 3 only while it leaves RESNET50_RUN_S (45), and none runs
# past it by more than 30 s. RESNET50_SIZE (default --large) and RESNET50_ARGS
# (e.g. "--reps 1 --warmup 0") let it run on lavapipe.
B=".gpu/vkdml_bench ${RESNET50_SIZE---large} $RESNET50_ARGS"
DEADLINE=${RESNET50_DEADLINE_S:-540}
elapsed() { echo $(($(date +%s) - T0)); }
smi() {
  command -v nvidia-smi > /dev/null || return 0
  echo "$1: $(nvidia-smi --query-gpu=clocks.sm,clocks.mem,power.draw,temperature.gpu,memory.used \
    --format=csv,noheader 2>&1)" >> $OUT/nvidia-smi.txt
}
smi start

# 1. Fresh processes.
txt=$OUT/resnet50_fresh.txt
parts=""
run_fresh() {  # json, bench arguments
  local json=$1
  shift
  timeout 120 $B --json $json "$@" 2>&1 | tee -a $txt | grep -E "^conv|^coopmat|rror"
  [ -f $json ] && parts="$parts $json"
}
run_fresh $OUT/resnet50_f_peak.json --filter "coopmat peak" --memory-info
grep -E "^memory|^buffer" $txt
i=0
for c in "resnet 3x3" "resnet 1x1" "resnet stem" "1x1 8192"; do
  run_fresh $OUT/resnet50_f_$((i++)).json --filter "conv $c" --path portable,dot,coopmat,auto
done
while IFS= read -r name; do
  if [ $((DEADLINE - ${RESNET50_COMPARE_S:-75} - $(elapsed))) -le 0 ]; then
    echo "out of time: $name left out"
    continue
  fi
  run_fresh $OUT/resnet50_f_$((i++)).json --filter "$name" --path auto
done < <($B --filter resnet50 --list)
[ -n "$parts" ] && merge $parts $OUT/resnet50_fresh.json && rm -f $parts
smi fresh
stamp "resnet50: fresh processes"

# 2. The tables and the chart.
python3 bench/compare_torch.py $OUT/resnet50_fresh.json --markdown --png $OUT/resnet50.png 2>&1 |
  tee $OUT/compare_resnet50.md
stamp "resnet50: compare_torch.py"

# 3. One process each.
history=()
one() {  # label, bench arguments
  local label=$1
  shift
  if [ $((DEADLINE - ${RESNET50_RUN_S:-45} - $(elapsed))) -lt 0 ]; then
    stamp "resnet50: $label left out (time)"
    return
  fi
  timeout $((DEADLINE + 30 - $(elapsed))) \
    $B --path auto --json $OUT/resnet50_$label.json "$@" > $OUT/resnet50_$label.txt 2>&1
  echo "$label: exit $?"
  grep -E "^churn|rror" $OUT/resnet50_$label.txt
  [ -f $OUT/resnet50_$label.json ] && history+=(--history "$label=$OUT/resnet50_$label.json")
  smi $label
  stamp "resnet50: $label"
}
all="conv "
moves="join |slice1 |scatter |diag |conv "
churn=${RESNET50_CHURN_GIB:-24}
one one --filter "$all"
one churn --filter "$all" --churn-gib $churn
one datamove --filter "$moves" --exclude latency
one churn_wait5s --filter "$all" --churn-gib $churn --churn-wait-ms 5000
one wait5s_warm --filter "$all" --churn-gib 0 --churn-wait-ms 5000 --warmup ${RESNET50_LONG_WARMUP:-200}

python3 bench/compare_torch.py $OUT/resnet50_fresh.json --markdown --history-only "${history[@]}" 2>&1 |
  tee $OUT/history_resnet50.md
stamp "resnet50: done"
