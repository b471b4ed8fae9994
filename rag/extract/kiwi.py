"""The kiwipiepy Korean analyser: one per process, loaded on first use behind a lock (``warm_up`` starts it early)."""
from __future__ import annotations

import threading


_kiwi = None
_kiwi_lock = threading.Lock()


def _get_kiwi():
    """kiwipiepy, loaded once per process (about 1 s, plus about 3 s at the first tokenize): only
    Korean text needs it."""
    global _kiwi
    with _kiwi_lock:
        if _kiwi is None:
            from kiwipiepy import Kiwi

            _kiwi = Kiwi()
        return _kiwi


def warm_up() -> None:
    """Start loading kiwipiepy in a background thread (ingestion calls this before embedding)."""
    if _kiwi is None:
        # the first tokenize() loads the rest of the model (~3 s); do that in the background too
        threading.Thread(target=lambda: _get_kiwi().tokenize("준비"), name="kiwi-warm-up", daemon=True).start()
