#!/usr/bin/env bash
# Start a one-node Slurm cluster on this machine (root, Debian's slurm-wlm and munge), for the real-Slurm test
# (nbs/12_reliability.ipynb, slow). Idempotent: a cluster already answering is left as it is.
#   bash scripts/slurm_local.sh          # install if needed, configure, start, wait until the node is idle
set -euo pipefail
if sinfo -h -o %T 2>/dev/null | grep -q idle; then echo "slurm: already up"; exit 0; fi
if ! command -v slurmctld >/dev/null || ! command -v munged >/dev/null; then
  apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q slurm-wlm munge
fi
host=$(hostname -s)
# OverSubscribe=FORCE:2 lets two single-CPU jobs share a core, so the test's two cells run at once (as array
# tasks on a real cluster would) even where the machine has one CPU, as some CI machines do.
cpus=${SLURM_LOCAL_CPUS:-$(nproc)}  # SLURM_LOCAL_CPUS=1 tries a one-CPU machine's cluster on a bigger one
mem=$(( $(awk '/MemTotal/ {print $2}' /proc/meminfo) / 1024 - 1024 ))
mkdir -p /etc/munge /var/log/munge /run/munge /var/lib/munge /var/spool/slurmctld /var/spool/slurmd /var/log/slurm /etc/slurm
[ -s /etc/munge/munge.key ] || dd if=/dev/urandom of=/etc/munge/munge.key bs=1024 count=1 status=none
chown -R munge:munge /etc/munge /var/log/munge /run/munge /var/lib/munge 2>/dev/null || true
chmod 400 /etc/munge/munge.key
pgrep -x munged >/dev/null || runuser -u munge -- /usr/sbin/munged --force
cat > /etc/slurm/slurm.conf <<CONF
ClusterName=qknorm
SlurmctldHost=$host
AuthType=auth/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
ReturnToService=2
SlurmUser=root
SlurmdUser=root
StateSaveLocation=/var/spool/slurmctld
SlurmdSpoolDir=/var/spool/slurmd
SlurmctldLogFile=/var/log/slurm/slurmctld.log
SlurmdLogFile=/var/log/slurm/slurmd.log
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
JobAcctGatherType=jobacct_gather/none
MpiDefault=none
NodeName=$host CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=debug Nodes=$host Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:2
CONF
pgrep -x slurmctld >/dev/null || /usr/sbin/slurmctld
pgrep -x slurmd >/dev/null || /usr/sbin/slurmd
for i in $(seq 1 60); do
  if sinfo -h -o %T 2>/dev/null | grep -q idle; then echo "slurm: node $host idle ($cpus CPUs)"; exit 0; fi
  sleep 1
done
echo "slurm: the node did not come up; see /var/log/slurm/"; sinfo || true; exit 1
