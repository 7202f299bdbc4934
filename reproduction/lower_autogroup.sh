# Sourced by the campaign scripts: lower the script's autogroup to AUTOGROUP_NICE (default 19).
# Under Linux's autogroup scheduling (sched_autogroup_enabled = 1) a job started in its own session (setsid, a new
# terminal) is its own group, and nice applies only inside the group: at nice 19 it still took an equal share of the
# CPU from interactive work (2026-11-27). The group is the whole session's, so it is lowered only where the script
# leads its own session (setsid), never the caller's shell (run directly, the write reniced every later command of
# that terminal: 2026-11-28).
read -r -a _stat < /proc/$$/stat
if [[ ${_stat[5]} == "$$" ]]; then echo "${AUTOGROUP_NICE:-19}" > /proc/self/autogroup 2>/dev/null || true; fi
