"""The child of the kill -9 test: train the toy run of ``fault_toys`` in RUN_DIR and SIGKILL this process at MOMENT.

``python kill_child.py RUN_DIR MOMENT`` with MOMENT one of
- ``record:<epoch>``: halfway through writing that epoch's record (a torn line on disk);
- ``checkpoint:<epoch>``: halfway through writing that epoch's checkpoint (a half temporary beside the last one);
- ``after-record:<epoch>``: after that epoch's record, before its checkpoint.
SIGKILL runs no handler, no ``finally`` and no buffer flush: what is on disk is what a kill -9 leaves.
"""

from __future__ import annotations

import io
import json
import os
import signal
import sys
from typing import Any

import torch
from fault_toys import config, ocgin, toy_graphs

from graphaudit.nn import loop, train, trainer


def die() -> None:
    os.kill(os.getpid(), signal.SIGKILL)


def kill_in_record(epoch: int) -> None:
    append = trainer.append_record

    def torn(path: Any, record: dict) -> None:
        if record["epoch"] == epoch:
            line = json.dumps(record, sort_keys=True) + "\n"
            with open(path, "a", encoding="utf-8") as handle:
                handle.write(line[: len(line) // 2])
                handle.flush()
                os.fsync(handle.fileno())
            die()
        append(path, record)

    trainer.append_record = torn


def kill_in_checkpoint(epoch: int) -> None:
    save = torch.save

    def torn(content: Any, target: Any, *args: Any, **kwargs: Any) -> None:
        if isinstance(content, dict) and content.get("epoch") == epoch:
            buffer = io.BytesIO()
            save(content, buffer, *args, **kwargs)
            with open(target, "wb") as handle:
                handle.write(buffer.getvalue()[: buffer.tell() // 2])
                handle.flush()
                os.fsync(handle.fileno())
            die()
        save(content, target, *args, **kwargs)

    loop.torch.save = torn


def kill_after_record(epoch: int) -> None:
    save = loop.Checkpoint.save

    def killed(self: loop.Checkpoint, at: int, wall_s: float) -> None:
        if at == epoch:
            die()
        save(self, at, wall_s)

    loop.Checkpoint.save = killed


KILLS = {"record": kill_in_record, "checkpoint": kill_in_checkpoint, "after-record": kill_after_record}

if __name__ == "__main__":
    run_dir, moment = sys.argv[1], sys.argv[2]
    kind, _, epoch = moment.partition(":")
    KILLS[kind](int(epoch))
    train(ocgin, toy_graphs(), config(), run_dir)
    sys.exit(f"{moment}: the run finished without being killed")
