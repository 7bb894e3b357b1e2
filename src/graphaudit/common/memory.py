"""Peak memory of this process (and of the programs it ran), as the kernel counts it."""

from __future__ import annotations

import resource
import sys

_UNIT = 1024.0 * 1024.0 if sys.platform == "darwin" else 1024.0  # ru_maxrss: bytes on macOS, KiB on Linux


def peak_rss_mb(children: bool = False) -> float:
    """The peak resident set size so far, in MiB: of this process, or with ``children`` the largest of this process
    and of any finished child it waited for (an external binary such as gBolt)."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    if children:
        peak = max(peak, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
    return peak / _UNIT
