"""One HTTP session for index and upstream queries (``requests``): the user's proxy settings and retries.

``requests`` reads ``HTTP_PROXY``/``HTTPS_PROXY``/``NO_PROXY`` (and ``REQUESTS_CA_BUNDLE``) from the
environment (``trust_env``), the way pip does, so a cluster behind a proxy works without flags. Transient
failures (connection resets, 429 and 5xx answers from a busy index or CDN) are retried with backoff; a
404 is an answer, not a failure, and is returned at once.
"""

from __future__ import annotations

from typing import Any

RETRY_STATUS = (429, 500, 502, 503, 504)
USER_AGENT = "rocmdoctor"


def session(retries: int = 3, backoff: float = 0.5) -> Any:
    """A ``requests.Session`` with proxies from the environment and bounded retries on GET/HEAD."""
    import requests
    from requests.adapters import HTTPAdapter
    from urllib3.util.retry import Retry

    s = requests.Session()
    s.trust_env = True
    s.headers["User-Agent"] = USER_AGENT
    retry = Retry(total=retries, connect=retries, read=retries, status=retries, backoff_factor=backoff,
                  status_forcelist=RETRY_STATUS, allowed_methods=frozenset({"GET", "HEAD"}),
                  raise_on_status=False, respect_retry_after_header=True)
    adapter = HTTPAdapter(max_retries=retry)
    s.mount("http://", adapter)
    s.mount("https://", adapter)
    return s
