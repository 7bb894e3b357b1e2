"""Errors of the data layer; each message names the dataset, what was expected, what was found, what to do."""


class DataError(RuntimeError):
    """A dataset could not be obtained or verified."""


class DataUnavailableError(DataError):
    """No source (mirror, package, download) could provide the files."""


class StatisticsMismatchError(DataError):
    """The files read fine but do not have the published counts."""


class ChecksumMismatchError(DataError):
    """A file's sha256 differs from the registry's."""
