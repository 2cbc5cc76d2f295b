"""The in-process counts' caller: a request handed to the application as a WSGI server hands it over (an environ
and `start_response`), its answer read whole, and nothing else. So what is counted is the application's work,
as a server runs it, not a test client's: webtest builds a webob request for every call, parses the answer into
another, and checks every header of both with its lint, work that grows with the answer's headers and that no
server does."""

import io
import json
import sys


class WSGIClient:
    """`get` and `post_json` as the bench's scenarios call them (bench.profile.scenario_call)."""

    def __init__(self, app, extra_environ=None):
        self.app = app
        self.extra_environ = dict(extra_environ or {})

    def get(self, url, headers=None, status=200):
        return self.call("GET", url, headers, status=status)

    def post_json(self, url, body, headers=None, status=200):
        return self.call("POST", url, headers, json.dumps(body).encode(), "application/json", status)

    def call(self, method, url, headers=None, body=b"", content_type=None, status=200):
        """The answer's body; AssertionError when its status is not `status`."""
        path, _, query = url.partition("?")
        environ = {
            "REQUEST_METHOD": method, "SCRIPT_NAME": "", "PATH_INFO": path, "QUERY_STRING": query,
            "SERVER_NAME": "localhost", "SERVER_PORT": "80", "SERVER_PROTOCOL": "HTTP/1.1",
            "HTTP_HOST": "localhost", "wsgi.version": (1, 0), "wsgi.url_scheme": "http",
            # waitress says every body ends where its stream does, whether or not a length was declared.
            "wsgi.input": io.BytesIO(body), "wsgi.input_terminated": True, "wsgi.errors": sys.stderr,
            "wsgi.multithread": True,
            "wsgi.multiprocess": False, "wsgi.run_once": False, **self.extra_environ,
        }
        if body:
            environ["CONTENT_LENGTH"] = str(len(body))
        if content_type:
            environ["CONTENT_TYPE"] = content_type
        for name, value in (headers or {}).items():
            environ["HTTP_" + name.upper().replace("-", "_")] = value
        started = []
        chunks = self.app(environ, lambda line, headerlist, exc_info=None: started.append(line))
        try:
            answer = b"".join(chunks)
        finally:
            if hasattr(chunks, "close"):
                chunks.close()
        if int(started[0].split(" ", 1)[0]) != status:
            raise AssertionError(f"{method} {url} answered {started[0]}: {answer[:500]!r}")
        return answer
