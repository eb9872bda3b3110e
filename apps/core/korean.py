"""The Korean morphological analyser (kiwipiepy's Kiwi), loaded once per process and shared by every thread.

Why one shared instance: kiwipiepy documents a Kiwi object as safe to use from several threads at once since
0.22.0 ("nogil Python에 대응하여 Kiwi 객체가 멀티스레드에 안전하도록 코드 개선"), and its multithreading guide
shares one `Kiwi()` between Python threads; 0.24.1 releases the GIL while it analyses a long text, so the
threads really run side by side. Each copy loads its model anew (about 400 MB and seconds of start-up,
measured with 0.24.1), so a copy per thread of a job's worker pool would cost that many times over. Nothing in Sori changes the shared
analyser (no user words, no settings): a caller that needs another configuration makes its own Kiwi."""

import threading

_kiwi = None
_loading = threading.Lock()


def kiwi():
    """The process's Kiwi. The first call loads the model (under a lock, so two threads asking at once load
    it once); kiwipiepy is imported only then, since importing it pulls the model into memory."""
    global _kiwi
    if _kiwi is None:
        with _loading:
            if _kiwi is None:
                from kiwipiepy import Kiwi

                _kiwi = Kiwi()
    return _kiwi
