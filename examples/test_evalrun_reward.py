"""Tests of evalrun_reward.py against a fake server in this process (standard library only).

    python3 -m unittest discover -s examples -p 'test_evalrun_reward.py'
"""

import json
import os
import socket
import sys
import threading
import time
import unittest
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from unittest import mock

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import evalrun_reward as er  # noqa: E402

PROBLEM = {
    "identifier": "inline_square",
    "description": "square",
    "prompts": [],
    "function_prototype": {"function_name": "square", "parameters": [{"name": "n", "type": "int"}],
                           "return_values": [{"type": "int"}]},
    "correctness_test_suite": [{"input": {"n": 3}, "expected_output": [9]}],
}


class FakeEvalrun:
    """A ThreadingHTTPServer on port 0 that records requests and answers from a script.

    `script` is a list of replies used in turn (the last one repeats): each is
    (status, headers, body) where body is bytes, or the string "grade" to
    score each candidate by the number in its code (`"0.25"` scores 0.25).
    """

    def __init__(self, script):
        self.script = list(script)
        self.requests = []
        self.lock = threading.Lock()
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                length = int(self.headers.get("Content-Length", "0"))
                body = json.loads(self.rfile.read(length).decode("utf-8"))
                with fake.lock:
                    fake.requests.append({"path": self.path, "headers": dict(self.headers), "body": body,
                                          "at": time.monotonic()})
                    reply = fake.script.pop(0) if len(fake.script) > 1 else fake.script[0]
                status, headers, payload = reply
                if payload == "grade":
                    payload = json.dumps({"results": [
                        {"id": c.get("id"), "status": "passed" if float(c["code"]) == 1 else "failed",
                         "passed": 0, "total": 4, "score": float(c["code"]), "tests": []}
                        for c in body["candidates"]]}).encode()
                elif callable(payload):
                    payload = payload(body)
                if status == "hang":
                    time.sleep(3)
                    status = 200
                self.send_response(status)
                for k, v in headers.items():
                    self.send_header(k, v)
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

        class Server(ThreadingHTTPServer):
            daemon_threads = True

            def handle_error(self, request, client_address):
                pass  # the client hung up first (the timeout test): not a failure of the test

        self.server = Server(("127.0.0.1", 0), Handler)
        self.url = "http://127.0.0.1:%d" % self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.server.shutdown()
        self.server.server_close()


GRADE = (200, {"Content-Type": "application/json"}, "grade")


def json_reply(status, doc, headers=None):
    return (status, dict({"Content-Type": "application/json"}, **(headers or {})), json.dumps(doc).encode())


class ClientTest(unittest.TestCase):
    def setUp(self):
        clean = {k: v for k, v in os.environ.items() if not k.startswith("EVALRUN_")}
        patcher = mock.patch.dict(os.environ, clean, clear=True)
        patcher.start()
        self.addCleanup(patcher.stop)

    def use(self, fake, **env):
        os.environ["EVALRUN_URL"] = fake.url
        for k, v in env.items():
            os.environ[k] = v

    # -- scores and the request ---------------------------------------------

    def test_score_is_the_servers_score_for_a_problem_id(self):
        with FakeEvalrun([GRADE]) as fake:
            self.use(fake)
            self.assertEqual(er.compute_score("src", "0.75", "py_sum_evens"), 0.75)
            self.assertEqual(er.compute_score("src", "1", "py_sum_evens"), 1.0)
            self.assertEqual(er.compute_score("src", "0", "py_sum_evens"), 0.0)
            request = fake.requests[0]
            self.assertEqual(request["path"], "/v1/grade")
            self.assertEqual(request["body"], {"problem_id": "py_sum_evens",
                                               "candidates": [{"id": "0", "code": "0.75"}],
                                               "options": {"extract_code": True}})
            self.assertNotIn("Authorization", request["headers"])

    def test_the_models_text_is_sent_unchanged_for_the_server_to_extract(self):
        answer = "Here is my answer:\n```python\ndef square(n):\n    return n * n\n```\n"
        with FakeEvalrun([json_reply(200, {"results": [{"id": "0", "status": "passed", "passed": 1,
                                                          "total": 1, "score": 1.0, "tests": []}]})]) as fake:
            self.use(fake)
            self.assertEqual(er.compute_score("src", answer, PROBLEM), 1.0)
            self.assertEqual(fake.requests[0]["body"]["candidates"][0]["code"], answer)
            self.assertEqual(fake.requests[0]["body"]["options"]["extract_code"], True)

    def test_inline_problem_as_dict_or_json_string(self):
        with FakeEvalrun([GRADE]) as fake:
            self.use(fake)
            er.compute_score("src", "0.5", PROBLEM)
            er.compute_score("src", "0.5", json.dumps(PROBLEM))
            for request in fake.requests:
                self.assertEqual(request["body"]["problem"], PROBLEM)
                self.assertNotIn("problem_id", request["body"])

    def test_options_and_language(self):
        with FakeEvalrun([GRADE]) as fake:
            self.use(fake)
            er.compute_score("src", "1", "p", extra_info={"language": "python"},
                             options={"timeout_ms": 500, "stop_on_first_failure": True})
            body = fake.requests[0]["body"]
            self.assertEqual(body["candidates"][0]["language"], "python")
            self.assertEqual(body["options"], {"extract_code": True, "timeout_ms": 500, "stop_on_first_failure": True})

    def test_prompt_id_from_a_keyword_or_extra_info(self):
        with FakeEvalrun([GRADE]) as fake:
            self.use(fake)
            er.compute_score("src", "1", "p", prompt_id="detailed")
            er.compute_score("src", "1", "p", extra_info={"prompt_id": "brief"})
            er.compute_score("src", "1", "p")
            sent = [r["body"]["candidates"][0] for r in fake.requests]
            self.assertEqual([c.get("prompt_id") for c in sent], ["detailed", "brief", None])
            self.assertNotIn("prompt_id", sent[2])

    def test_batch_sends_each_samples_prompt_id(self):
        with FakeEvalrun([GRADE]) as fake:
            self.use(fake)
            infos = [{"prompt_id": "a"}, None, {"prompt_id": "b"}]
            er.compute_score_batch(["d"] * 3, ["0.1", "0.2", "0.3"], ["p"] * 3, infos)
            candidates = fake.requests[0]["body"]["candidates"]
            self.assertEqual([c.get("prompt_id") for c in candidates], ["a", None, "b"])

    def test_token_header(self):
        with FakeEvalrun([GRADE]) as fake:
            self.use(fake, EVALRUN_TOKEN="s3cret")
            er.compute_score("src", "1", "p")
            self.assertEqual(fake.requests[0]["headers"].get("Authorization"), "Bearer s3cret")

    def test_token_file(self):
        import tempfile
        with tempfile.NamedTemporaryFile("w", suffix=".token", delete=False) as f:
            f.write("from-file\n")
        self.addCleanup(os.unlink, f.name)
        with FakeEvalrun([GRADE]) as fake:
            self.use(fake, EVALRUN_TOKEN_FILE=f.name)
            er.compute_score("src", "1", "p")
            self.assertEqual(fake.requests[0]["headers"].get("Authorization"), "Bearer from-file")

    # -- batches ---------------------------------------------------------------

    def test_batch_groups_candidates_of_one_problem_and_keeps_order(self):
        other = dict(PROBLEM, identifier="other")
        truths = ["a", PROBLEM, "a", json.dumps(PROBLEM), other, "a"]
        codes = ["0.1", "0.2", "0.3", "0.4", "0.5", "1"]
        with FakeEvalrun([GRADE]) as fake:
            self.use(fake)
            scores = er.compute_score_batch(["d"] * 6, codes, truths, [None] * 6)
            self.assertEqual(scores, [0.1, 0.2, 0.3, 0.4, 0.5, 1.0])
            self.assertEqual(len(fake.requests), 3)
            by_problem = {}
            for request in fake.requests:
                body = request["body"]
                key = body.get("problem_id") or body["problem"]["identifier"]
                by_problem[key] = [c["code"] for c in body["candidates"]]
            self.assertEqual(by_problem, {"a": ["0.1", "0.3", "1"],
                                          "inline_square": ["0.2", "0.4"], "other": ["0.5"]})

    def test_batch_splits_at_max_batch(self):
        with FakeEvalrun([GRADE]) as fake:
            self.use(fake, EVALRUN_MAX_BATCH="2")
            scores = er.compute_score_batch(["d"] * 5, ["0.1", "0.2", "0.3", "0.4", "0.5"], ["a"] * 5)
            self.assertEqual(scores, [0.1, 0.2, 0.3, 0.4, 0.5])
            self.assertEqual(sorted(len(r["body"]["candidates"]) for r in fake.requests), [1, 2, 2])

    def test_batch_fails_whole_when_one_request_fails(self):
        with FakeEvalrun([GRADE, json_reply(500, {"error": "boom"}), GRADE]) as fake:
            self.use(fake, EVALRUN_PARALLEL="1")
            with self.assertRaises(er.EvalrunUnavailable):
                er.compute_score_batch(["d"] * 3, ["1", "1", "1"], ["a", "b", "c"])

    # -- retries and failures --------------------------------------------------

    def test_retries_503_honouring_retry_after(self):
        busy = json_reply(503, {"error": "queue full"}, {"Retry-After": "1"})
        with FakeEvalrun([busy, busy, GRADE]) as fake:
            self.use(fake)
            self.assertEqual(er.compute_score("src", "0.5", "p"), 0.5)
            self.assertEqual(len(fake.requests), 3)
            gaps = [b["at"] - a["at"] for a, b in zip(fake.requests, fake.requests[1:])]
            for gap in gaps:
                self.assertGreaterEqual(gap, 0.95)

    def test_gives_up_on_503_past_the_wait_budget(self):
        busy = json_reply(503, {"error": "queue full"}, {"Retry-After": "1"})
        with FakeEvalrun([busy]) as fake:
            self.use(fake, EVALRUN_MAX_WAIT="2.5")
            started = time.monotonic()
            with self.assertRaises(er.EvalrunUnavailable) as caught:
                er.compute_score("src", "0.5", "p")
            self.assertLess(time.monotonic() - started, 4)
            self.assertIn("busy", str(caught.exception))
            self.assertIn("queue full", str(caught.exception))
            self.assertEqual(len(fake.requests), 3)  # after 0 s, about 1 s and about 2 s

    def test_raises_on_connection_refused(self):
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        os.environ["EVALRUN_URL"] = "http://127.0.0.1:%d" % port
        with self.assertRaises(er.EvalrunUnavailable) as caught:
            er.compute_score("src", "1", "p")
        self.assertIn("unreachable", str(caught.exception))
        with self.assertRaises(er.EvalrunUnavailable):
            er.compute_score_batch(["d"], ["1"], ["p"])

    def test_raises_on_500(self):
        with FakeEvalrun([json_reply(500, {"error": "worker pool gone"})]) as fake:
            self.use(fake)
            with self.assertRaises(er.EvalrunUnavailable) as caught:
                er.compute_score("src", "1", "p")
            self.assertIn("HTTP 500", str(caught.exception))
            self.assertIn("worker pool gone", str(caught.exception))
            self.assertEqual(len(fake.requests), 1)

    def test_raises_on_502_without_retrying(self):
        with FakeEvalrun([(502, {}, b"<html>bad gateway</html>")]) as fake:
            self.use(fake)
            with self.assertRaises(er.EvalrunUnavailable):
                er.compute_score("src", "1", "p")
            self.assertEqual(len(fake.requests), 1)

    def test_4xx_is_a_configuration_error(self):
        with FakeEvalrun([json_reply(404, {"error": "unknown problem: nope"})]) as fake:
            self.use(fake)
            with self.assertRaises(er.EvalrunRequestError) as caught:
                er.compute_score("src", "1", "nope")
            self.assertEqual(caught.exception.status, 404)
            self.assertEqual(caught.exception.reason, "unknown problem: nope")
            self.assertNotIsInstance(caught.exception, er.EvalrunUnavailable)

    def test_fastify_style_error_body(self):
        body = {"statusCode": 400, "code": "FST_ERR_VALIDATION", "error": "Bad Request",
                "message": "body/candidates must NOT have fewer than 1 items"}
        with FakeEvalrun([json_reply(400, body)]) as fake:
            self.use(fake)
            with self.assertRaises(er.EvalrunRequestError) as caught:
                er.compute_score("src", "1", "p")
            self.assertIn("must NOT have fewer than 1 items", str(caught.exception))

    def test_401_without_token(self):
        with FakeEvalrun([json_reply(401, {"error": "missing or wrong bearer token"})]) as fake:
            self.use(fake)
            with self.assertRaises(er.EvalrunRequestError) as caught:
                er.compute_score("src", "1", "p")
            self.assertEqual(caught.exception.status, 401)

    def test_raises_on_malformed_replies(self):
        replies = [
            (200, {}, b"not json"),
            json_reply(200, {"nothing": []}),
            json_reply(200, {"results": []}),
            json_reply(200, {"results": [{"id": "0", "status": "passed"}]}),
            json_reply(200, {"results": [{"id": "0", "score": "1"}]}),
            json_reply(200, {"results": [{"id": "0", "score": 1.5}]}),
            json_reply(200, {"results": [{"id": "7", "score": 1.0}]}),
        ]
        for reply in replies:
            with self.subTest(reply=reply[2]), FakeEvalrun([reply]) as fake:
                self.use(fake)
                with self.assertRaises(er.EvalrunUnavailable):
                    er.compute_score("src", "1", "p")

    def test_a_problem_without_tests_is_not_a_score(self):
        reply = json_reply(200, {"results": [{"id": "0", "status": "no-tests", "passed": 0, "total": 0, "score": 0}]})
        with FakeEvalrun([reply]) as fake:
            self.use(fake)
            with self.assertRaises(er.EvalrunRequestError):
                er.compute_score("src", "1", "p")

    def test_raises_on_timeout(self):
        with FakeEvalrun([("hang", {}, b'{"results": []}')]) as fake:
            self.use(fake, EVALRUN_TIMEOUT="0.5")
            started = time.monotonic()
            with self.assertRaises(er.EvalrunUnavailable) as caught:
                er.compute_score("src", "1", "p")
            self.assertLess(time.monotonic() - started, 2.5)
            self.assertIn("0.5 s", str(caught.exception))

    def test_bad_ground_truth_is_refused_before_sending(self):
        for truth in ["{not json", "", 42, ["p"]]:
            with self.subTest(truth=truth), self.assertRaises((ValueError, TypeError)):
                er.compute_score("src", "1", truth)

    def test_the_proxy_environment_is_ignored_by_default(self):
        with FakeEvalrun([GRADE]) as fake:
            self.use(fake)
            os.environ["http_proxy"] = os.environ["HTTP_PROXY"] = "http://127.0.0.1:9"
            self.assertEqual(er.compute_score("src", "1", "p"), 1.0)


if __name__ == "__main__":
    unittest.main()
