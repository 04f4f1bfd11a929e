"""moto S3 server for the archiver tests.

moto enforces `If-None-Match: *` on PutObject (412 PreconditionFailed) but checks
and writes without a lock, so two racing conditional PUTs could both succeed.
This wrapper serialises every mutating request so the check-and-write is atomic,
like real S3.
Usage: s3_server.py <port>
"""
import sys
import threading

from moto.server import DomainDispatcherApplication, create_backend_app
from werkzeug.serving import run_simple

lock = threading.Lock()


class Serialised:
    def __init__(self, app):
        self.app = app

    def __call__(self, environ, start_response):
        if environ.get("REQUEST_METHOD") in ("PUT", "POST", "DELETE"):
            with lock:
                return list(self.app(environ, start_response))
        return self.app(environ, start_response)


def main():
    port = int(sys.argv[1])
    app = DomainDispatcherApplication(create_backend_app)
    run_simple("127.0.0.1", port, Serialised(app), threaded=True, use_reloader=False)


if __name__ == "__main__":
    main()
