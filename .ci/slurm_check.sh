#!/usr/bin/env bash
# CI check of profiles/slurm against a REAL single-node SLURM on this machine.
#
#   sudo .ci/slurm_check.sh          # from anywhere; root needed (apt, daemons, /etc/slurm)
#
# What it does:
#   1. installs Debian's slurm-wlm (slurmctld, slurmd, slurm-client) and munge if missing
#      (service auto-start suppressed during the install);
#   2. starts munged, slurmctld and slurmd itself, in the foreground mode, in the
#      background, with all state, spool, sockets and logs in a temporary directory; a
#      one-node cluster "localhost" (all CPUs, partition `debug`, no accounting);
#   3. clones the repository (plus the working tree's uncommitted, non-ignored changes)
#      into the temporary directory and runs there, with the quick profile's config,
#          snakemake --profile profiles/slurm <the 4 grid points of ApproxRepSet on BBCSPORT split 0>
#      (4 training jobs, one per grid point, after BBCSPORT's download and store), so the
#      checkout's own outputs are never touched; squeue is sampled every 0.5 s meanwhile;
#   4. asserts every run record exists, that every training job ran as a SLURM job
#      (snakemake's "SLURM jobid N", the plugin's log .snakemake/slurm_logs/rule_train/N.log,
#      slurmctld's COMPLETED record for N), and that squeue saw at least two of them RUNNING
#      at the same time.
# A trap stops every daemon started here by its PID (after cancelling any job left),
# restores /etc/slurm/slurm.conf, and removes the temporary directory, also on failure.
#
# Environment:
#   PYTHON_ENV=<venv dir>   virtualenv to use (default: $VIRTUAL_ENV, else <repo>/.venv; if none
#                           exists, a fresh one is made in the temp dir with -e '.[workflow,data]':
#                           snakemake, and the GloVe vectors BBCSPORT's store is built from).
#                           The slurm executor plugin is pip-installed into it if missing.
#   KEEP_TMP=1              keep the temporary directory (logs, clone) for inspection.
#   SNAKEMAKE_TIMEOUT=<s>   limit for the snakemake run (default 1800).
# Exit status: 0 on success, non-zero on any failure.
set -Eeuo pipefail

PLUGIN_PIN="snakemake-executor-plugin-slurm==2.8.0"
APT_PACKAGES=(slurmctld slurmd slurm-client munge)
NODE=localhost
PARTITION=debug
CTLD_PORT=16817   # not the default 6817, to stay clear of any system SLURM
SLURMD_PORT=16818

T_START=$(date +%s)
REPO=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
WORK=""
MUNGED_PID="" CTLD_PID="" SLURMD_PID="" SM_PID="" TAIL_PID="" SQUEUE_PID=""
CONF=/etc/slurm/slurm.conf
CONF_BACKUP=""
CONF_WRITTEN=0
POLICY_RC_CREATED=0
declare -a TIMINGS=()

log() { printf '[slurm_check %(%H:%M:%S)T] %s\n' -1 "$*"; }
die() { log "FAIL: $*"; exit 1; }
phase_done() {  # phase_done NAME START_EPOCH
    local dt=$(( $(date +%s) - $2 ))
    TIMINGS+=("$(printf '%-28s %5d s' "$1" "$dt")")
    log "$1: ${dt} s"
}

stop_pid() {  # stop_pid NAME PID [GRACE_S]: TERM, wait up to GRACE_S (20) s, then KILL
    local name=$1 pid=$2 grace=${3:-20} i
    [[ -n $pid ]] || return 0
    kill -0 "$pid" 2>/dev/null || { log "$name (pid $pid) already gone"; return 0; }
    log "stopping $name (pid $pid)"
    kill -TERM "$pid" 2>/dev/null || true
    for i in $(seq 1 $((grace * 2))); do
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.5
    done
    if kill -0 "$pid" 2>/dev/null; then
        log "$name (pid $pid) ignored TERM, sending KILL"
        kill -KILL "$pid" 2>/dev/null || true
    fi
    wait "$pid" 2>/dev/null || true
}

cleanup() {
    local rc=$?
    set +e
    trap - EXIT INT TERM
    if [[ $rc -ne 0 && -n $WORK && -d $WORK/log ]]; then
        log "---- failure diagnostics (rc=$rc) ----"
        for f in "$WORK"/log/*.log "$WORK"/log/*.out; do
            [[ -s $f ]] || continue
            echo "==== tail $f"; tail -n 40 "$f"
        done
        if [[ -d $WORK/repo/.snakemake/slurm_logs ]]; then
            find "$WORK/repo/.snakemake/slurm_logs" -type f -name '*.log' | while read -r f; do
                echo "==== tail $f"; tail -n 40 "$f"
            done
        fi
    fi
    # On SIGTERM snakemake waits for its running jobs, so it gets 10 s, then KILL; the
    # jobs it leaves are cancelled below.
    stop_pid snakemake "$SM_PID" 10
    stop_pid "tail of snakemake's log" "$TAIL_PID" 2
    stop_pid "squeue sampler" "$SQUEUE_PID" 2
    # Jobs still queued/running would leave slurmstepd and job processes behind.
    if [[ -n $CTLD_PID ]] && kill -0 "$CTLD_PID" 2>/dev/null; then
        if [[ -n $(timeout 10 squeue -h -o %i 2>/dev/null) ]]; then
            log "cancelling leftover SLURM jobs"
            timeout 10 scancel --partition="$PARTITION" 2>/dev/null
            for _ in $(seq 1 30); do
                [[ -z $(timeout 10 squeue -h -t PENDING,RUNNING,CONFIGURING,COMPLETING -o %i 2>/dev/null) ]] && break
                sleep 1
            done
            log "jobs left: $(timeout 10 squeue -h -t PENDING,RUNNING,CONFIGURING,COMPLETING -o %i 2>/dev/null | wc -l)"
        fi
    fi
    stop_pid slurmd "$SLURMD_PID"
    stop_pid slurmctld "$CTLD_PID"
    stop_pid munged "$MUNGED_PID"
    if [[ $CONF_WRITTEN -eq 1 ]]; then
        rm -f "$CONF"
        if [[ -n $CONF_BACKUP ]]; then mv -f "$CONF_BACKUP" "$CONF"; log "restored previous $CONF"; fi
    fi
    if [[ $POLICY_RC_CREATED -eq 1 ]]; then rm -f /usr/sbin/policy-rc.d; fi
    if [[ -n $WORK && -d $WORK ]]; then
        if [[ ${KEEP_TMP:-0} == 1 ]]; then log "kept $WORK"; else rm -rf "$WORK"; fi
    fi
    log "total: $(( $(date +%s) - T_START )) s"
    if [[ $rc -eq 0 ]]; then log "PASS"; else log "FAILED (exit $rc)"; fi
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

[[ $(id -u) -eq 0 ]] || die "run as root (installs packages, starts SLURM daemons, writes $CONF)"
for d in slurmctld slurmd; do
    if pgrep -x "$d" >/dev/null 2>&1; then
        die "a $d is already running on this machine; refusing to start a second cluster"
    fi
done

# ---------------------------------------------------------------- 1. packages
t=$(date +%s)
missing=()
for p in "${APT_PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
    log "apt-get install ${missing[*]}"
    if [[ ! -e /usr/sbin/policy-rc.d ]]; then
        # Keep the packages' init scripts from starting daemons we would not own.
        printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d
        chmod 755 /usr/sbin/policy-rc.d
        POLICY_RC_CREATED=1
    fi
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
    if [[ $POLICY_RC_CREATED -eq 1 ]]; then rm -f /usr/sbin/policy-rc.d; POLICY_RC_CREATED=0; fi
else
    log "SLURM and munge packages already installed"
fi
for b in munged mungekey slurmctld slurmd sinfo squeue sbatch srun scontrol; do
    command -v "$b" >/dev/null || die "$b not found after install"
done
log "$(slurmctld -V), $(munged --version 2>&1 | head -n1)"
phase_done "apt install" "$t"

# ---------------------------------------------------------------- 2. cluster
t=$(date +%s)
WORK=$(mktemp -d /tmp/repset-slurm-check.XXXXXX)
chmod 755 "$WORK"
mkdir -p "$WORK"/{munge,munge-run,state,spool,log}
chmod 700 "$WORK/munge"
chmod 755 "$WORK/munge-run"   # clients (slurm, job steps) must reach the socket
MUNGE_SOCKET=$WORK/munge-run/munge.socket
MUNGE_KEY=$WORK/munge/munge.key

if mungekey --help 2>&1 | grep -q -- --create; then
    mungekey --create --keyfile="$MUNGE_KEY" --bits=1024 --force
else
    dd if=/dev/urandom of="$MUNGE_KEY" bs=1 count=1024 status=none
fi
chmod 400 "$MUNGE_KEY"
munged --foreground --force \
    --socket="$MUNGE_SOCKET" --key-file="$MUNGE_KEY" \
    --pid-file="$WORK/munge/munged.pid" --log-file="$WORK/log/munged.log" \
    --seed-file="$WORK/munge/munged.seed" \
    >"$WORK/log/munged.out" 2>&1 &
MUNGED_PID=$!
for _ in $(seq 1 50); do [[ -S $MUNGE_SOCKET ]] && break; sleep 0.2; done
[[ -S $MUNGE_SOCKET ]] || die "munged did not create $MUNGE_SOCKET"
munge -n --socket="$MUNGE_SOCKET" | unmunge --socket="$MUNGE_SOCKET" >/dev/null \
    || die "munge round trip failed"
log "munged up (pid $MUNGED_PID)"

# Node line: CPUs/sockets/cores/threads/memory as slurmd sees them, under our node name.
node_hw=$(slurmd -C | head -n1)
[[ $node_hw == NodeName=* ]] || die "unexpected 'slurmd -C' output: $node_hw"
node_hw=${node_hw#NodeName=* }   # drop the NodeName=<hostname> field
real_mem=$(sed -n 's/.*RealMemory=\([0-9]*\).*/\1/p' <<<"$node_hw")
node_cpus=$(sed -n 's/.*CPUs=\([0-9]*\).*/\1/p' <<<"$node_hw")
log "node: $node_hw"

if [[ -e $CONF ]]; then
    CONF_BACKUP=$CONF.repset-check-backup.$$
    mv "$CONF" "$CONF_BACKUP"
    log "moved existing $CONF aside to $CONF_BACKUP"
fi
mkdir -p /etc/slurm
CONF_WRITTEN=1
# The plugin's job step does not pass SLURM_CONF on, so the config must be at the
# default path.
cat >"$CONF" <<EOF
# Written by repset .ci/slurm_check.sh; removed when it exits.
ClusterName=repsetci
SlurmctldHost=$NODE(127.0.0.1)
SlurmctldPort=$CTLD_PORT
SlurmdPort=$SLURMD_PORT
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$MUNGE_SOCKET
StateSaveLocation=$WORK/state
SlurmdSpoolDir=$WORK/spool
SlurmctldPidFile=$WORK/slurmctld.pid
SlurmdPidFile=$WORK/slurmd.pid
SlurmctldLogFile=$WORK/log/slurmctld.log
SlurmdLogFile=$WORK/log/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
MpiDefault=none
MailProg=/bin/true
SwitchType=switch/none
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/filetxt
JobCompLoc=$WORK/log/jobcomp.log
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU_Memory
ReturnToService=2
# squeue must still see finished jobs at the plugin's status checks
MinJobAge=300
NodeName=$NODE NodeAddr=127.0.0.1 $node_hw State=UNKNOWN
PartitionName=$PARTITION Nodes=$NODE Default=YES MaxTime=INFINITE State=UP
EOF

slurmctld -D -i >"$WORK/log/slurmctld.out" 2>&1 &
CTLD_PID=$!
slurmd -D -N "$NODE" >"$WORK/log/slurmd.out" 2>&1 &
SLURMD_PID=$!
log "slurmctld pid $CTLD_PID, slurmd pid $SLURMD_PID; waiting for $NODE to be idle"
state=""
for i in $(seq 1 90); do
    kill -0 "$CTLD_PID" 2>/dev/null || die "slurmctld exited"
    kill -0 "$SLURMD_PID" 2>/dev/null || die "slurmd exited"
    state=$(timeout 5 sinfo -h -N -n "$NODE" -o %T 2>/dev/null || true)
    [[ $state == idle ]] && break
    if [[ $state == down* || $state == drain* ]] && ((i % 10 == 0)); then
        timeout 5 scontrol update NodeName="$NODE" State=RESUME 2>/dev/null || true
    fi
    sleep 1
done
[[ $state == idle ]] || die "node $NODE not idle after 90 s (state: '${state:-?}')"
timeout 10 sinfo
phase_done "start munge + SLURM" "$t"

# A trivial job proves the cluster (and munge credentials in job steps) work before the
# workflow is involved.
t=$(date +%s)
hello=$(timeout 120 srun -p "$PARTITION" -n1 -c1 -t 2 hostname) || die "srun hostname failed"
log "srun hostname -> $hello"
phase_done "srun smoke test" "$t"

# ---------------------------------------------------------------- 3. clone + env
t=$(date +%s)
git clone -q --no-hardlinks "$REPO" "$WORK/repo"
# The working tree's uncommitted changes (e.g. a profile not committed yet): modified
# and untracked-but-not-ignored files are copied, deleted files are deleted.
(
    cd "$REPO"
    git ls-files -z --modified --others --exclude-standard \
        | xargs -0 -r sh -c 'for f; do [ -f "$f" ] && printf "%s\0" "$f"; done' sh \
        | tar --null -T - -cf - \
        | tar -xf - -C "$WORK/repo"
    git ls-files -z --deleted | (cd "$WORK/repo" && xargs -0 -r rm -f --)
)
n_changed=$(cd "$REPO" && git ls-files --modified --others --exclude-standard | wc -l)
log "cloned $(git -C "$REPO" rev-parse --short HEAD) + $n_changed uncommitted file(s) into $WORK/repo"
[[ -f $WORK/repo/profiles/slurm/config.yaml ]] || die "profiles/slurm/config.yaml missing in the clone"

venv=${PYTHON_ENV:-${VIRTUAL_ENV:-}}
if [[ -z $venv && -x $REPO/.venv/bin/python ]]; then venv=$REPO/.venv; fi
if [[ -z $venv ]]; then
    venv=$WORK/venv
    log "no virtualenv found: creating $venv"
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q -c "$WORK/repo/constraints.txt" -e "$WORK/repo[workflow,data]" "$PLUGIN_PIN"
fi
# shellcheck disable=SC1091
. "$venv/bin/activate"
if ! python -c "import snakemake_executor_plugin_slurm" 2>/dev/null; then
    log "installing $PLUGIN_PIN into $venv"
    pip install -q -c "$WORK/repo/constraints.txt" "$PLUGIN_PIN"
fi
# The clone's sources win over an editable install of another checkout; sbatch's
# --export=ALL carries PATH/VIRTUAL_ENV/PYTHONPATH into the job.
export PYTHONPATH=$WORK/repo${PYTHONPATH:+:$PYTHONPATH}
log "python: $(command -v python); snakemake $(snakemake --version); plugin $(pip show snakemake-executor-plugin-slurm 2>/dev/null | sed -n 's/^Version: //p')"
phase_done "clone + python env" "$t"

# ---------------------------------------------------------------- 4. dry run
# The whole DAG through the profile: no job may ask for more CPUs or memory than the
# node has (rules with `threads: workflow.cores` would otherwise pend forever).
cd "$WORK/repo"
t=$(date +%s)
snakemake --profile profiles/slurm --dry-run all >"$WORK/log/dryrun.out" 2>&1 \
    || { tail -n 30 "$WORK/log/dryrun.out"; die "dry run of rule all with the profile failed"; }
python - "$WORK/log/dryrun.out" "$node_cpus" "$real_mem" <<'PY' || die "a job of the DAG does not fit the node"
import re, sys
text, cpus, mem = open(sys.argv[1]).read(), int(sys.argv[2]), int(sys.argv[3])
worst, bad = {}, []
for block in re.split(r"\n\[[^\]\n]*\]\n", text):
    rule = re.search(r"^(?:local)?rule (\w+):", block, re.M)
    if not rule:
        continue
    threads = int((re.search(r"threads: (\d+)", block) or [0, 1])[1])
    cpt = int((re.search(r"cpus_per_task=(\d+)", block) or [0, threads])[1])
    mem_mb = int((re.search(r"\bmem_mb=(\d+)", block) or [0, 0])[1])
    part = (re.search(r"slurm_partition=(\w+)", block) or [0, "?"])[1]
    name = rule[1]
    w = worst.setdefault(name, [0, 0, 0, 0, part])
    w[0] += 1; w[1] = max(w[1], threads); w[2] = max(w[2], cpt); w[3] = max(w[3], mem_mb)
    if max(threads, cpt) > cpus or mem_mb > mem:
        bad.append(f"{name}: threads={threads} cpus_per_task={cpt} mem_mb={mem_mb}")
if not worst:
    sys.exit("no jobs parsed from the dry run")
print(f"  {'rule':<16}{'jobs':>5}{'threads':>8}{'cpus':>6}{'mem_mb':>8}  partition")
for name, (n, th, cpt, m, part) in sorted(worst.items()):
    print(f"  {name:<16}{n:>5}{th:>8}{cpt:>6}{m:>8}  {part}")
if bad:
    sys.exit(f"jobs exceeding the node ({cpus} CPUs, {mem} MB):\n  " + "\n  ".join(bad))
PY
phase_done "dry run of rule all" "$t"

# ---------------------------------------------------------------- 5. run
# Split jobs of the protocol: the quick profile's 2 x 2 grid of ApproxRepSet on BBCSPORT's split 0,
# one SLURM job per grid point (the data mirror beside the checkout stands in for the network).
TARGETS=()
for point in k5-m10 k5-m20 k10-m10 k10-m20; do
    TARGETS+=("results/runs/bbcsport/approx_repset/$point/split0_seed0.json")
done
rm -rf results/runs
t=$(date +%s)
log "snakemake --profile profiles/slurm ${#TARGETS[@]} split jobs (node: $node_cpus CPUs, ${real_mem} MB)"
# squeue every 0.5 s: which jobs are RUNNING (the concurrency assertion reads this)
( while true; do echo "$(date +%s.%N) $(timeout 5 squeue -h -t RUNNING -o '%i:%j' 2>/dev/null | paste -sd' ')"; sleep 0.5; done ) \
    >"$WORK/log/squeue_running.log" 2>/dev/null &
SQUEUE_PID=$!
# In the background, so that a signal to this script is acted on at once (the trap
# then stops snakemake and cancels its jobs), and with our own deadline.
: >"$WORK/log/snakemake.out"   # exists before tail follows it
snakemake --profile profiles/slurm \
    --configfile quick.yaml --config "data_mirror=$REPO/../shared/data/mirror" \
    --slurm-keep-successful-logs \
    --slurm-init-seconds-before-status-checks 10 \
    "${TARGETS[@]}" >"$WORK/log/snakemake.out" 2>&1 &
SM_PID=$!
tail -n +1 -f --pid="$SM_PID" "$WORK/log/snakemake.out" &
TAIL_PID=$!
deadline=$(( $(date +%s) + ${SNAKEMAKE_TIMEOUT:-1800} ))
while kill -0 "$SM_PID" 2>/dev/null; do
    if (( $(date +%s) >= deadline )); then
        log "snakemake still running after ${SNAKEMAKE_TIMEOUT:-1800} s"
        stop_pid snakemake "$SM_PID" 10
        break
    fi
    sleep 1
done
sm_rc=0
wait "$SM_PID" || sm_rc=$?
SM_PID=""
wait "$TAIL_PID" || true
TAIL_PID=""
stop_pid "squeue sampler" "$SQUEUE_PID" 2
SQUEUE_PID=""
phase_done "snakemake via SLURM" "$t"
[[ $sm_rc -eq 0 ]] || die "snakemake exited with $sm_rc"

# ---------------------------------------------------------------- 6. assertions
for f in "${TARGETS[@]}"; do
    [[ -s $f ]] || die "output $f missing or empty"
    python -c "import json,sys; r=json.load(open(sys.argv[1])); assert r['test']['error'] >= 0 and r['split'] == 0, r" "$f" \
        || die "$f is not a run record"
done
run_id=$(sed -n 's/^SLURM run ID: \([-0-9a-f]*\).*/\1/p' "$WORK/log/snakemake.out" | head -n1)
[[ -n $run_id ]] || die "snakemake's log has no 'SLURM run ID'"
train_ids=()
for jobid in $(sed -n 's/.*submitted with SLURM jobid \([0-9][0-9]*\).*/\1/p' "$WORK/log/snakemake.out"); do
    slurm_log=$(find .snakemake/slurm_logs/rule_train -name "$jobid.log" 2>/dev/null | head -n1)
    [[ -n $slurm_log ]] || continue        # the download / store jobs
    grep -q "rule train" "$slurm_log" || die "$slurm_log does not show rule train running"
    grep -Eq "Finished job|[0-9]+ of [0-9]+ steps \(100%\) done" "$slurm_log" \
        || die "$slurm_log does not show the job finishing"
    grep -q "JobId=$jobid .*JobState=COMPLETED" "$WORK/log/jobcomp.log" \
        || die "slurmctld's job completion log has no COMPLETED record for job $jobid"
    train_ids+=("$jobid")
done
(( ${#train_ids[@]} == ${#TARGETS[@]} )) \
    || die "expected ${#TARGETS[@]} training jobs in SLURM, found ${#train_ids[@]} (${train_ids[*]})"
python - "$WORK/log/squeue_running.log" "${train_ids[@]}" <<'PY' || die "squeue never showed two training jobs running at once"
import sys
ids = set(sys.argv[2:])
most, when = 0, None
for line in open(sys.argv[1]):
    stamp, *jobs = line.split()
    running = {j.split(":")[0] for j in jobs} & ids
    if len(running) > most:
        most, when = len(running), (stamp, sorted(running))
print(f"  most training jobs RUNNING at once in squeue: {most} (at {when})")
sys.exit(0 if most >= 2 else 1)
PY
log "training jobs ${train_ids[*]} ran through SLURM:"
for jobid in "${train_ids[@]}"; do
    grep "JobId=$jobid " "$WORK/log/jobcomp.log" | tr ' ' '\n' \
        | grep -E '^(JobId|JobState|NodeList|ProcCnt|StartTime|EndTime|ExitCode)=' | paste -sd' '
done
ls -l "${TARGETS[@]}"

echo
log "timings:"
printf '  %s\n' "${TIMINGS[@]}"
