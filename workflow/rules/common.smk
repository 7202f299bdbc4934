# Helpers of the rules: wildcards -> protocol runs, inputs and cluster requests.


def job_run(w):
    """The Run the wildcards name (ValueError, at DAG time, when the split, point or seed is not the protocol's)."""
    return check_run(config, w.dataset, w.model, w.point, w.split, w.seed)


def init_job(w):
    """The InitRun of the initialisation study the wildcards name (ValueError at DAG time otherwise)."""
    return check_init_run(config, w.dataset, w.init, w.split, w.seed)


def train_inputs(w):
    run = job_run(w)
    inputs = {"store": store_path(run.dataset, config)}
    if run.point == CHOSEN:
        inputs["choice"] = grid_choice_of(config, run)     # its CV repetition's with grid_scope: repetition
    return inputs


def job_request(w, key, default):
    """The budget's request for this job (results/budget/protocol.csv), else the profile's default."""
    return JOB_RESOURCES.get((w.dataset, w.model, w.point), {}).get(key, default)
