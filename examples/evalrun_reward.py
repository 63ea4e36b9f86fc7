"""Reward function for RL training loops, graded by an `evalrun serve` server.

Standard library only (Python 3.9+). Start a server first::

    evalrun serve --problems problems/ --port 8080

Then, in verl::

    custom_reward_function.path=examples/evalrun_reward.py
    custom_reward_function.name=compute_score

or, with verl's batch reward manager (one HTTP request per problem instead
of one per sample)::

    reward_model.reward_manager=batch
    custom_reward_function.path=examples/evalrun_reward.py
    custom_reward_function.name=compute_score_batch

`ground_truth` is a problem id known to the server (its `--problems` folder)
or a whole problem object in evalrun's problem format: a dict, or a JSON
string of one. The model's text is sent as it is, with the option
`"extract_code": true`, so the server takes the code out of Markdown fences
and prose with evalrun's own rules (src/solutions/extract-code.ts); there is
no second implementation of those rules here.

The reward is the fraction of the problem's tests that passed (0.0 to 1.0).
A candidate that fails, crashes, runs out of time or memory, or does not
load gets its score as usual. A problem with the server is never a score:
an unreachable server, a timeout, a 5xx, a reply that is not what the API
promises, or a server that stays busy (503) for longer than the wait budget
raises `EvalrunUnavailable`; a request the server rejects (4xx: an unknown or
invalid problem, a missing token) raises `EvalrunRequestError`. A reward of
0.0 for a dead server would teach the policy that every answer is wrong.

Configuration, read from the environment on every call:

    EVALRUN_URL         server address (default http://127.0.0.1:8080)
    EVALRUN_TOKEN       bearer token, when the server requires one
    EVALRUN_TOKEN_FILE  or a file holding it (used when EVALRUN_TOKEN is unset)
    EVALRUN_TIMEOUT     seconds to wait on the socket per request (default 300)
    EVALRUN_MAX_WAIT    seconds of 503 back-off allowed per request (default 300)
    EVALRUN_PARALLEL    requests the batch variant sends at once (default 4)
    EVALRUN_MAX_BATCH   candidates per request in the batch variant (default 64)
    EVALRUN_USE_PROXY   "1" to honour http_proxy/https_proxy (off by default:
                        a grading server is normally on the local network)

Keyword arguments (verl passes `custom_reward_function.reward_kwargs` this
way): `options` (evalrun grading options such as `timeout_ms`, `memory_mb`,
`float_tolerance`, `strict_types`, `stop_on_first_failure`), `language`
("python" or "javascript"; `extra_info["language"]` per sample also works)
and `prompt_id` (the problem's prompt the policy answered;
`extra_info["prompt_id"]` per sample also works). Name the prompt when the
policy saw a `genericize: true` prompt, or writes a function's body alone:
the server then grades the answer as the CLI grades a submission to that
prompt (the generic `function` is the one called; a body is joined to the
prompt's code).
"""

import email.utils
import http.client
import json
import math
import os
import random
import socket
import sys
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor

__all__ = [
    "EvalrunError",
    "EvalrunUnavailable",
    "EvalrunRequestError",
    "EvalrunClient",
    "compute_score",
    "compute_score_batch",
]

DEFAULT_URL = "http://127.0.0.1:8080"
DEFAULT_TIMEOUT = 300.0
DEFAULT_MAX_WAIT = 300.0
DEFAULT_PARALLEL = 4
DEFAULT_MAX_BATCH = 64
# A 503 without a usable Retry-After waits this long; no wait is shorter than
# the floor, so "Retry-After: 0" cannot become a busy loop.
DEFAULT_RETRY_AFTER = 1.0
MIN_RETRY_AFTER = 0.1


class EvalrunError(Exception):
    """Base class: something other than the candidate decided the outcome."""


class EvalrunUnavailable(EvalrunError):
    """The server could not grade: unreachable, timed out, 5xx, busy past the wait budget, or a malformed reply."""


class EvalrunRequestError(EvalrunError):
    """The server rejected the request (4xx): a configuration error such as an unknown problem or a missing token."""

    def __init__(self, status, reason):
        where = "HTTP %d" % status if status is not None else "no HTTP error"
        super().__init__("evalrun rejected the request (%s): %s" % (where, reason))
        self.status = status  # None when the reply was 200 but cannot be a score (a problem without tests)
        self.reason = reason


def _env_float(name, default):
    text = os.environ.get(name, "").strip()
    if not text:
        return default
    try:
        value = float(text)
    except ValueError:
        raise ValueError("%s must be a number, got %r" % (name, text)) from None
    if not value > 0:
        raise ValueError("%s must be positive, got %r" % (name, text))
    return value


def _env_token():
    token = os.environ.get("EVALRUN_TOKEN", "").strip()
    if token:
        return token
    path = os.environ.get("EVALRUN_TOKEN_FILE", "").strip()
    if path:
        with open(path, encoding="utf-8") as f:
            return f.read().strip() or None
    return None


def _retry_after_seconds(value):
    """Seconds to wait from a Retry-After header: a number of seconds or an HTTP date."""
    if value is None:
        return DEFAULT_RETRY_AFTER
    value = value.strip()
    try:
        seconds = float(value)
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError, IndexError):
            return DEFAULT_RETRY_AFTER
        if when is None:
            return DEFAULT_RETRY_AFTER
        seconds = when.timestamp() - time.time()
    if math.isnan(seconds):
        return DEFAULT_RETRY_AFTER
    return max(seconds, MIN_RETRY_AFTER)


def _reason(body):
    """The one-line reason of an error reply: its JSON `message`/`error`, or its text."""
    text = body.decode("utf-8", "replace").strip()
    try:
        doc = json.loads(text)
    except ValueError:
        doc = None
    if isinstance(doc, dict):
        parts = [doc.get(k) for k in ("error", "message") if isinstance(doc.get(k), str) and doc.get(k)]
        # fastify's own errors carry a generic `error` ("Bad Request") and the detail in `message`.
        if len(parts) == 2 and parts[0] == parts[1]:
            parts = parts[:1]
        if parts:
            return ": ".join(parts)
    line = " ".join(text.split())
    return (line[:300] + "...") if len(line) > 300 else (line or "(empty body)")


def problem_field(ground_truth):
    """The request field naming the problem: ("problem_id", id) or ("problem", object)."""
    if isinstance(ground_truth, bytes):
        ground_truth = ground_truth.decode("utf-8")
    if isinstance(ground_truth, str):
        text = ground_truth.strip()
        if text.startswith("{"):
            try:
                problem = json.loads(text)
            except ValueError as e:
                raise ValueError("ground_truth looks like a JSON problem object but does not parse: %s" % e) from None
            if not isinstance(problem, dict):
                raise ValueError("ground_truth JSON must be an object")
            return "problem", problem
        if not text:
            raise ValueError("ground_truth is an empty problem id")
        return "problem_id", text
    if hasattr(ground_truth, "keys"):  # a dict or any other mapping
        return "problem", dict(ground_truth)
    raise TypeError("ground_truth must be a problem id (str) or a problem object (dict or JSON string), got %s"
                    % type(ground_truth).__name__)


class EvalrunClient:
    """A connection profile for one evalrun server. Arguments left out come from the environment."""

    def __init__(self, url=None, token=None, timeout=None, max_wait=None, parallel=None, max_batch=None,
                 use_proxy=None):
        self.url = (url or os.environ.get("EVALRUN_URL") or DEFAULT_URL).rstrip("/")
        self.token = token if token is not None else _env_token()
        self.timeout = timeout if timeout is not None else _env_float("EVALRUN_TIMEOUT", DEFAULT_TIMEOUT)
        self.max_wait = max_wait if max_wait is not None else _env_float("EVALRUN_MAX_WAIT", DEFAULT_MAX_WAIT)
        self.parallel = max(1, int(parallel if parallel is not None else _env_float("EVALRUN_PARALLEL", DEFAULT_PARALLEL)))
        self.max_batch = max(1, int(max_batch if max_batch is not None
                                    else _env_float("EVALRUN_MAX_BATCH", DEFAULT_MAX_BATCH)))
        if use_proxy is None:
            use_proxy = os.environ.get("EVALRUN_USE_PROXY", "") == "1"
        handlers = [] if use_proxy else [urllib.request.ProxyHandler({})]
        self._opener = urllib.request.build_opener(*handlers)

    # -- one request -------------------------------------------------------

    def _post(self, path, payload):
        """POSTs JSON and returns the parsed 200 reply, retrying 503/429 within the wait budget."""
        body = json.dumps(payload).encode("utf-8")
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self.token:
            headers["Authorization"] = "Bearer " + self.token
        url = self.url + path
        waited = 0.0
        while True:
            request = urllib.request.Request(url, data=body, headers=headers, method="POST")
            try:
                with self._opener.open(request, timeout=self.timeout) as response:
                    status, raw = response.status, response.read()
            except urllib.error.HTTPError as e:
                raw = _read_quietly(e)
                if e.code in (503, 429):
                    delay = _retry_after_seconds(e.headers.get("Retry-After"))
                    delay *= 1 + random.random() * 0.1  # spread out clients told the same delay
                    if waited + delay > self.max_wait:
                        raise EvalrunUnavailable(
                            "evalrun at %s is still busy (HTTP %d) after %.1f s of waiting (EVALRUN_MAX_WAIT=%g): %s"
                            % (self.url, e.code, waited, self.max_wait, _reason(raw))) from None
                    time.sleep(delay)
                    waited += delay
                    continue
                if 400 <= e.code < 500:
                    raise EvalrunRequestError(e.code, _reason(raw)) from None
                raise EvalrunUnavailable("evalrun at %s failed (HTTP %d): %s" % (self.url, e.code, _reason(raw))) from None
            except (socket.timeout, TimeoutError) as e:
                raise EvalrunUnavailable("evalrun at %s did not answer within %g s" % (self.url, self.timeout)) from None
            except urllib.error.URLError as e:
                if isinstance(e.reason, (socket.timeout, TimeoutError)):
                    raise EvalrunUnavailable("evalrun at %s: connecting timed out after %g s" % (self.url, self.timeout)) from None
                raise EvalrunUnavailable("evalrun at %s is unreachable: %s" % (self.url, e.reason)) from None
            except (OSError, http.client.HTTPException) as e:  # reset connections, replies that are not HTTP
                raise EvalrunUnavailable("evalrun at %s: %s: %s" % (self.url, type(e).__name__, e)) from None
            if status != 200:
                raise EvalrunUnavailable("evalrun at %s answered HTTP %d where 200 was expected" % (self.url, status))
            try:
                return json.loads(raw.decode("utf-8"))
            except ValueError:
                raise EvalrunUnavailable("evalrun at %s sent a reply that is not JSON: %r" % (self.url, raw[:200])) from None

    def grade(self, ground_truth, codes, options=None, languages=None, prompt_ids=None):
        """Grades candidates of one problem in one request; returns the server's result objects in order."""
        field, value = problem_field(ground_truth)
        candidates = []
        for i, code in enumerate(codes):
            if not isinstance(code, str):
                raise TypeError("candidate code must be a str, got %s" % type(code).__name__)
            candidate = {"id": str(i), "code": code}
            language = languages[i] if languages is not None else None
            if language:
                candidate["language"] = language
            prompt_id = prompt_ids[i] if prompt_ids is not None else None
            if prompt_id:
                candidate["prompt_id"] = prompt_id
            candidates.append(candidate)
        if not candidates:
            return []
        grading = {"extract_code": True}
        grading.update(options or {})
        reply = self._post("/v1/grade", {field: value, "candidates": candidates, "options": grading})
        results = reply.get("results") if isinstance(reply, dict) else None
        if not isinstance(results, list) or len(results) != len(candidates):
            raise EvalrunUnavailable("evalrun at %s sent a malformed reply: expected %d results, got %s"
                                     % (self.url, len(candidates), _describe_results(results)))
        for i, result in enumerate(results):
            _check_result(self.url, i, result, value if field == "problem_id" else value.get("identifier"))
        return results

    def scores(self, ground_truth, codes, options=None, languages=None, prompt_ids=None):
        """The reward of each candidate of one problem, sending at most `max_batch` per request."""
        out = []
        for start in range(0, len(codes), self.max_batch):
            chunk = codes[start:start + self.max_batch]
            langs = languages[start:start + self.max_batch] if languages is not None else None
            prompts = prompt_ids[start:start + self.max_batch] if prompt_ids is not None else None
            out.extend(float(r["score"]) for r in self.grade(ground_truth, chunk, options, langs, prompts))
        return out

    def scores_batch(self, solution_strs, ground_truths, options=None, languages=None, prompt_ids=None):
        """Rewards of many candidates of many problems: one request per problem (and per max_batch), in parallel."""
        n = len(solution_strs)
        if (len(ground_truths) != n or (languages is not None and len(languages) != n)
                or (prompt_ids is not None and len(prompt_ids) != n)):
            raise ValueError("solution_strs, ground_truths (and languages, prompt_ids) must have the same length")
        groups = {}  # problem key -> (problem id or object, indices of its candidates)
        for i in range(n):
            field, value = problem_field(ground_truths[i])
            key = (field, value if field == "problem_id" else json.dumps(value, sort_keys=True))
            groups.setdefault(key, (value, []))[1].append(i)
        jobs = []
        for truth, indices in groups.values():
            for start in range(0, len(indices), self.max_batch):
                jobs.append((truth, indices[start:start + self.max_batch]))
        scores = [None] * n

        def run(job):
            truth, indices = job
            codes = [solution_strs[i] for i in indices]
            langs = [languages[i] for i in indices] if languages is not None else None
            prompts = [prompt_ids[i] for i in indices] if prompt_ids is not None else None
            results = self.grade(truth, codes, options, langs, prompts)
            for i, result in zip(indices, results):
                scores[i] = float(result["score"])

        if len(jobs) <= 1 or self.parallel == 1:
            for job in jobs:
                run(job)
        else:
            with ThreadPoolExecutor(max_workers=min(self.parallel, len(jobs))) as pool:
                # list() re-raises the first failure; the pool still waits for the rest.
                list(pool.map(run, jobs))
        return scores


def _read_quietly(error):
    try:
        return error.read() or b""
    except Exception:
        return b""


def _describe_results(results):
    if isinstance(results, list):
        return "%d" % len(results)
    return "no results list"


def _check_result(url, index, result, problem_label):
    if not isinstance(result, dict):
        raise EvalrunUnavailable("evalrun at %s sent a malformed result %d: %r" % (url, index, result))
    if "id" in result and result["id"] is not None and result["id"] != str(index):
        raise EvalrunUnavailable("evalrun at %s sent results out of order: result %d has id %r"
                                 % (url, index, result["id"]))
    if result.get("status") == "no-tests":
        raise EvalrunRequestError(None, "problem %r has no tests to grade against" % (problem_label,))
    score = result.get("score")
    if isinstance(score, bool) or not isinstance(score, (int, float)) or not 0.0 <= score <= 1.0:
        raise EvalrunUnavailable("evalrun at %s sent a result %d without a score in [0, 1]: %r"
                                 % (url, index, score))


def _per_sample(extra_info, name, given):
    """A keyword argument when given, else the sample's own `extra_info[name]`, else None."""
    if given:
        return given
    if hasattr(extra_info, "get"):
        value = extra_info.get(name)
        if isinstance(value, str) and value:
            return value
    return None


def _language_of(extra_info, language):
    return _per_sample(extra_info, "language", language)


def _prompt_of(extra_info, prompt_id):
    return _per_sample(extra_info, "prompt_id", prompt_id)


def compute_score(data_source, solution_str, ground_truth, extra_info=None, options=None, language=None,
                  prompt_id=None):
    """The reward of one model answer: the fraction of the problem's tests it passes (0.0 to 1.0).

    `data_source` is not used (verl passes it); `ground_truth` is a problem id
    or a problem object; `extra_info` may carry "language" and "prompt_id". Raises
    EvalrunUnavailable or EvalrunRequestError instead of returning a score
    when the server cannot grade.
    """
    client = EvalrunClient()
    lang = _language_of(extra_info, language)
    prompt = _prompt_of(extra_info, prompt_id)
    return client.scores(ground_truth, [solution_str], options, [lang] if lang else None,
                         [prompt] if prompt else None)[0]


def compute_score_batch(data_sources, solution_strs, ground_truths, extra_infos=None, options=None, language=None,
                        prompt_id=None):
    """The rewards of many answers, in order: answers to the same problem share a request.

    Takes the keyword arguments verl's batch reward manager passes
    (`data_sources`, `solution_strs`, `ground_truths`, `extra_infos`; lists or
    numpy arrays). Raises as compute_score does: one infrastructure failure
    fails the whole batch rather than scoring part of it 0.0.
    """
    solution_strs = list(solution_strs)
    ground_truths = list(ground_truths)
    infos = list(extra_infos) if extra_infos is not None else [None] * len(solution_strs)
    if len(infos) != len(solution_strs):
        raise ValueError("extra_infos must have one entry per solution")
    languages = [_language_of(info, language) for info in infos]
    prompts = [_prompt_of(info, prompt_id) for info in infos]
    return EvalrunClient().scores_batch(solution_strs, ground_truths, options,
                                        languages if any(languages) else None,
                                        prompts if any(prompts) else None)


def _main(argv):
    import argparse

    parser = argparse.ArgumentParser(description="Score one answer with an evalrun server (EVALRUN_URL).")
    parser.add_argument("problem", help="a problem id, or @FILE for a problem JSON file")
    parser.add_argument("answer", help="a file holding the model's answer, or - for stdin")
    parser.add_argument("--language", choices=["python", "javascript"])
    parser.add_argument("--prompt-id", help="the problem's prompt the answer was written for")
    args = parser.parse_args(argv)
    truth = args.problem
    if truth.startswith("@"):
        with open(truth[1:], encoding="utf-8") as f:
            truth = json.load(f)
    if args.answer == "-":
        answer = sys.stdin.read()
    else:
        with open(args.answer, encoding="utf-8") as f:
            answer = f.read()
    try:
        print(compute_score("cli", answer, truth, language=args.language, prompt_id=args.prompt_id))
    except EvalrunError as e:
        print("evalrun_reward: %s" % e, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
