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
