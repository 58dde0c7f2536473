#!/usr/bin/env bash
# A real single-node Slurm cluster (slurmctld + slurmd + munged on localhost) for the tests of
# sharded runs: installed from Debian's packages when missing, configured and started in a
# folder of its own, stopped by pid. Needs root and apt-get (the install step) on Debian 12.
#
#   scripts/slurm-cluster.sh install        # slurmctld slurmd slurm-client munge, only if missing
#   scripts/slurm-cluster.sh up DIR         # configure in DIR, start, wait until the node is idle;
#                                           # then `. DIR/env` exports SLURM_CONF for sbatch & co.
#   scripts/slurm-cluster.sh down DIR       # stop slurmd, slurmctld and munged by their pid files
#
# SLURM_CTLD_PORT and SLURM_D_PORT choose the ports (default 6817 and 6818). The cluster is
# cgroup-free (proctrack/linuxproc, task/none), has no accounting, one node named from
# `slurmd -C`'s hardware line and one partition; munge runs on a private socket with a key of
# its own, so nothing of the machine's own munge or Slurm set-up is touched.
set -euo pipefail

die() { echo "slurm-cluster: $*" >&2; exit 1; }

install_pkgs() {
    local missing=()
    command -v slurmctld >/dev/null 2>&1 || missing+=(slurmctld)
    command -v slurmd >/dev/null 2>&1 || missing+=(slurmd)
    command -v sbatch >/dev/null 2>&1 || missing+=(slurm-client)
    command -v munged >/dev/null 2>&1 || missing+=(munge)
    [ ${#missing[@]} -eq 0 ] && return 0
    [ "$(id -u)" = 0 ] || die "not root: cannot install ${missing[*]}"
    command -v apt-get >/dev/null 2>&1 || die "no apt-get: cannot install ${missing[*]}"
    echo "slurm-cluster: installing ${missing[*]} from Debian's packages" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null 2>&1 \
        || { apt-get update -q >/dev/null 2>&1 \
             && apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null 2>&1; } \
        || die "apt-get could not install ${missing[*]}"
}

up() {
    local d=$1 node=corpus-node
    mkdir -p "$d"/{etc,munge,run,log,state/ctld,state/d,jobs}
    d=$(cd "$d" && pwd)
    chmod 755 "$d/munge"   # munged refuses a socket folder that others cannot traverse
    [ -s "$d/munge/munge.key" ] || mungekey --create --keyfile="$d/munge/munge.key" >/dev/null
    chmod 600 "$d/munge/munge.key"
    local hw
    hw=$(slurmd -C | head -1 | sed 's/^NodeName=[^ ]* //')
    local conf="$d/etc/slurm.conf" sock="$d/munge/munge.socket.2"
    cat >"$conf" <<EOF
ClusterName=corpus-test
SlurmctldHost=localhost
SlurmUser=root
SlurmdUser=root
SlurmctldPort=${SLURM_CTLD_PORT:-6817}
SlurmdPort=${SLURM_D_PORT:-6818}
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$sock
StateSaveLocation=$d/state/ctld
SlurmdSpoolDir=$d/state/d
SlurmctldPidFile=$d/run/slurmctld.pid
SlurmdPidFile=$d/run/slurmd.pid
SlurmctldLogFile=$d/log/slurmctld.log
SlurmdLogFile=$d/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SwitchType=switch/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MinJobAge=600
MailProg=/bin/true
NodeName=$node NodeAddr=127.0.0.1 NodeHostname=localhost $hw State=UNKNOWN
PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP
EOF
    echo "export SLURM_CONF=$conf" >"$d/env"
    export SLURM_CONF=$conf
    munged --socket="$sock" --key-file="$d/munge/munge.key" --pid-file="$d/run/munged.pid" \
        --log-file="$d/log/munged.log" --seed-file="$d/munge/munged.seed"
    munge -n -S "$sock" | unmunge -S "$sock" >/dev/null || die "munge round trip failed"
    slurmctld -f "$conf"
    slurmd -f "$conf" -N "$node"
    for _ in $(seq 1 240); do
        if [ "$(sinfo -h -N -o %t 2>/dev/null)" = "idle" ]; then
            echo "slurm-cluster: node idle ($d)" >&2
            return 0
        fi
        sleep 0.25
    done
    sinfo -N -l >&2 || true
    tail -n 30 "$d"/log/*.log >&2 || true
    die "the node never became idle"
}

down() {
    local d=$1 f pid
    # Jobs still running (a test that failed part-way) are cancelled before the daemons stop.
    if [ -s "$d/run/slurmctld.pid" ] && [ -f "$d/etc/slurm.conf" ]; then
        SLURM_CONF="$d/etc/slurm.conf" scancel --user="$(id -un)" >/dev/null 2>&1 || true
    fi
    for f in slurmd slurmctld munged; do
        [ -s "$d/run/$f.pid" ] || continue
        pid=$(cat "$d/run/$f.pid")
        kill "$pid" 2>/dev/null || true
        for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        if kill -0 "$pid" 2>/dev/null; then kill -9 "$pid" 2>/dev/null || true; fi
        rm -f "$d/run/$f.pid"
        echo "slurm-cluster: stopped $f ($pid)" >&2
    done
}

case "${1:-}" in
    install) install_pkgs ;;
    up) [ -n "${2:-}" ] || die "usage: $0 up DIR"; up "$2" ;;
    down) [ -n "${2:-}" ] || die "usage: $0 down DIR"; down "$2" ;;
    *) die "usage: $0 install | up DIR | down DIR" ;;
esac
