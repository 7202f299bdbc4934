"""The log of a workflow job: what the job reports, and the traceback when it fails."""
from __future__ import annotations

import logging
import os
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["job_log"]


@contextmanager
def job_log(path: str | os.PathLike) -> Iterator[logging.Logger]:
    """Send INFO logging to ``path`` (the rule's ``log:`` file) for the block; an exception leaving the
    block is written there with its traceback, then raised again (Snakemake prints the log's path)."""
    logging.basicConfig(filename=path, level=logging.INFO, format="%(asctime)s %(message)s", force=True)
    log = logging.getLogger("repset.job")
    try:
        yield log
    except BaseException:
        log.exception("job failed")
        raise
    finally:
        logging.shutdown()
