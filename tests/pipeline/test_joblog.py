"""A job's log holds what it reports and, when it fails, the traceback."""
import logging

import pytest

from repset.pipeline.joblog import job_log


def test_the_traceback_reaches_the_log_and_the_error_propagates(tmp_path):
    path = tmp_path / "job.log"
    with pytest.raises(ZeroDivisionError):
        with job_log(path):
            logging.getLogger("repset.pipeline.train").info("split 0 trained")
            1 / 0
    text = path.read_text()
    assert "split 0 trained" in text and "job failed" in text
    assert "Traceback (most recent call last)" in text and "ZeroDivisionError: division by zero" in text


def test_a_job_that_succeeds_logs_no_failure(tmp_path):
    path = tmp_path / "job.log"
    with job_log(path) as log:
        log.info("done")
    assert "done" in path.read_text() and "failed" not in path.read_text()


def test_exit_on_success_ends_the_process_with_status_0_after_the_outputs(tmp_path):
    import subprocess
    import sys

    code = ("import atexit, sys; from repset.pipeline.joblog import job_log\n"
            "atexit.register(lambda: open(sys.argv[2], 'w').write('teardown ran'))\n"
            "with job_log(sys.argv[1], exit_on_success=True) as log:\n"
            "    log.info('record written')\n"
            "    print('done', flush=False)\n"
            "raise SystemExit('not reached')\n")
    out = subprocess.run([sys.executable, "-c", code, str(tmp_path / "job.log"), str(tmp_path / "atexit")],
                         capture_output=True, text=True)
    assert out.returncode == 0 and out.stdout == "done\n"
    assert "record written" in (tmp_path / "job.log").read_text() and not (tmp_path / "atexit").exists()


def test_exit_on_success_does_not_hide_a_failure(tmp_path):
    import subprocess
    import sys

    code = ("import sys; from repset.pipeline.joblog import job_log\n"
            "with job_log(sys.argv[1], exit_on_success=True):\n"
            "    raise KeyError('missing split')\n")
    out = subprocess.run([sys.executable, "-c", code, str(tmp_path / "job.log")], capture_output=True, text=True)
    assert out.returncode == 1 and "KeyError: 'missing split'" in (tmp_path / "job.log").read_text()
