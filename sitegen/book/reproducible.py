"""The one date every file the build makes carries, so that two builds of the same sources match.

1980-01-01 is the earliest date a zip entry can record: the site's zip, the wheel (``SOURCE_DATE_EPOCH`` for
hatchling), the compiled standard library and the clock of the Node process that makes Python's memory snapshot
(``python_snapshot.mjs`` reads it from ``SOURCE_DATE_EPOCH`` too) all use it. Written once, here.
"""

from __future__ import annotations

import calendar

ZIP_DATE = (1980, 1, 1, 0, 0, 0)
"""The date as a zip entry holds it (``zipfile.ZipInfo.date_time``)."""
SOURCE_DATE_EPOCH = calendar.timegm((*ZIP_DATE, 0, 0, 0))
"""The same moment in seconds since 1970, as reproducible-build tools read it."""
