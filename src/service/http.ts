/**
 * The grading service's HTTP API (docs/SERVE.md), on fastify. A grading
 * request is checked against its schema (grade-request.ts) by the handler,
 * not by fastify, so that each refusal says where and what was expected in
 * evalrun's words. Every refusal is a 4xx whose body is `{"error": "<one
 * line>"}`, answered before any candidate reaches a worker.
 *
 *   POST /v1/grade     grade candidates against a problem (by id, or inline)
 *   GET  /v1/problems  the problems loaded at start
 *   GET  /healthz      200 once the workers are warm, 503 before and while stopping
 *   GET  /metrics      Prometheus text
 */
import { timingSafeEqual } from 'node:crypto';
import { PassThrough } from 'node:stream';
import Fastify, { type FastifyError, type FastifyInstance, type FastifyReply } from 'fastify';
import { parsePythonJsonText } from '../problems/load.js';
import { recordJson } from '../values/wire.js';
import { GradeCancelled, GradeRefused, GraderClosed, QueueFull, type GradeCallOptions, type GradedCandidate } from './grade-call.js';
import { gradeRequestProblem, isGradeRequest, type GradeRequest } from './grade-request.js';
import { ProblemText, type Grader } from './grader.js';
import { memberText } from './json-member.js';
import type { ServiceMetrics } from './metrics.js';

/** Default largest request body: room for a batch of hundreds of long candidates with an inline problem. */
export const DEFAULT_BODY_LIMIT_MB = 64;

export interface HttpOptions {
  /** Required on every route but /healthz when set: `Authorization: Bearer <token>`. */
  token: string | null;
  bodyLimitBytes: number;
}

const NDJSON = 'application/x-ndjson';
const STOPPING = 'the service is stopping';

/** A request's body as it was written, for the inline problem's own text. */
const rawBodies = new WeakMap<object, string>();

/** A 4xx with its one-line reason. */
class Refusal extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
  ) {
    super(message);
  }
}

/** Builds the service's routes on a fastify instance (not yet listening). */
export function buildService(grader: Grader, metrics: ServiceMetrics, options: HttpOptions): FastifyInstance {
  const app = Fastify({
    bodyLimit: options.bodyLimitBytes,
    logger: false,
    // A request on a connection still open once the server closes is answered by the routes, which
    // know the service is stopping (/healthz says so, a call gets 503 in the service's error form),
    // rather than by fastify's own 503 body.
    return503OnClosing: false,
  });

  // JSON is parsed here, not by fastify, to keep the text (memberText) and to say where it is malformed.
  app.removeContentTypeParser(['application/json', 'text/plain']);
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    // An inline problem may hold NaN or Infinity, as a problem file may (Python's json.dumps writes them); the rest of a request may not.
    const { parsed } = parsePythonJsonText(text, 'problem');
    if (!parsed.ok) return done(new Refusal(400, `malformed JSON: ${parsed.message}`), undefined);
    rawBodies.set(request, text);
    done(null, parsed.value);
  });

  app.setErrorHandler((error: FastifyError | Refusal, request, reply) => {
    const status = error.statusCode ?? 500;
    // Refused before a route saw the call: counted with the routes' own refusals.
    if (status === 415) metrics.refusedCall('unsupported-media-type');
    else if (status === 413) metrics.refusedCall('body-too-large');
    else if (error instanceof Refusal) metrics.refusedCall('malformed-json');
    if (status === 415) {
      const given = request.headers['content-type'];
      return reply.code(415).send({ error: `the body must be JSON, sent with Content-Type: application/json (got ${given === undefined ? 'none' : given})` });
    }
    if (status === 413)
      return reply.code(413).send({ error: `request body larger than the limit of ${formatMb(options.bodyLimitBytes)} (evalrun serve --body-limit-mb)` });
    if (status >= 400 && status < 500) return reply.code(status).send({ error: oneLine(error.message) });
    request.log.error(error);
    process.stderr.write(`evalrun serve: ${request.method} ${request.url}: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    return reply.code(500).send({ error: `internal error: ${oneLine(error.message)}` });
  });
  app.setNotFoundHandler((request, reply) => reply.code(404).send({ error: `no such route: ${request.method} ${request.url.split('?')[0]}` }));

  if (options.token !== null) {
    const expected = Buffer.from(`Bearer ${options.token}`);
    app.addHook('onRequest', async (request, reply) => {
      if (request.url === '/healthz') return;
      const given = Buffer.from(request.headers.authorization ?? '');
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
        return reply.code(401).header('www-authenticate', 'Bearer').send({ error: 'missing or wrong bearer token (Authorization: Bearer <token>)' });
      }
    });
  }

  // While stopping, each reply closes its connection, so that a client's keep-alive connection does not hold the stop up.
  app.addHook('onSend', async (_request, reply) => {
    if (grader.closed) reply.header('connection', 'close');
  });

  app.get('/healthz', async (_request, reply) => {
    const body = {
      status: grader.closed ? 'stopping' : grader.isReady ? 'ok' : 'starting',
      workers: grader.workers,
      queued: grader.queued,
      warm_failures: grader.warmFailures,
    };
    return reply.code(body.status === 'ok' ? 200 : 503).send(body);
  });

  app.get('/metrics', async (_request, reply) => reply.type(metrics.contentType).send(await metrics.text()));

  app.get('/v1/problems', () => Promise.resolve(grader.problems()));

  app.post('/v1/grade', async (request, reply) => {
    const body: unknown = request.body;
    if (!isGradeRequest(body)) {
      metrics.refusedCall('invalid-request');
      return reply.code(400).send({ error: `invalid request: ${gradeRequestProblem(body) ?? 'not a grading request'}` });
    }
    const problem = problemOf(body, rawBodies.get(request) ?? null);
    const controller = new AbortController();
    // The client went away before its answer: its candidates still waiting are dropped.
    reply.raw.on('close', () => {
      if (!reply.raw.writableFinished) controller.abort();
    });
    const streaming = (request.headers.accept ?? '').includes(NDJSON);
    const stream = streaming ? new PassThrough() : null;
    const callOptions: GradeCallOptions = { ...gradingOf(body.options), signal: controller.signal };
    let firstHeard: () => void = () => undefined;
    const firstResult = new Promise<'streaming'>((resolve) => (firstHeard = () => resolve('streaming')));
    if (stream !== null) {
      callOptions.onResult = (result) => {
        stream.write(`${resultJson(result)}\n`);
        firstHeard();
      };
    }
    let call;
    try {
      call = grader.start(problem, body.candidates, callOptions);
    } catch (e) {
      return refuse(reply, e, metrics);
    }
    if (stream === null) {
      try {
        const results = await call.results;
        return reply.type('application/json').send(`{"results":[${results.map(resultJson).join(',')}]}`);
      } catch (e) {
        return refuse(reply, e, metrics);
      }
    }
    // The status goes out with the first result: a call that fails before it has one (the service
    // stopping while it still waited for a worker) is answered as a call that does not stream.
    const failure = call.results.then(
      () => null,
      (e: unknown) => ({ error: e }),
    );
    const before = await Promise.race([firstResult, failure]);
    if (before !== 'streaming' && before !== null) return refuse(reply, before.error, metrics);
    void failure.then((failed) => {
      // Too late for a status code: the stream ends with a line that says why.
      if (failed !== null && !(failed.error instanceof GradeCancelled)) {
        stream.write(`${JSON.stringify({ error: streamedError(failed.error) })}\n`);
      }
      stream.end();
    });
    return reply.type(NDJSON).send(stream);
  });

  return app;
}

function problemOf(body: GradeRequest, raw: string | null): string | ProblemText {
  if (body.problem_id !== undefined && body.problem !== undefined) throw new Refusal(400, 'give "problem_id" or "problem", not both');
  if (body.problem_id !== undefined) return body.problem_id;
  if (body.problem === undefined) throw new Refusal(400, 'no problem: give "problem_id" (a loaded problem) or "problem" (the problem itself)');
  const text = raw === null ? null : memberText(raw, 'problem');
  return new ProblemText(text ?? JSON.stringify(body.problem));
}

function gradingOf(options: GradeRequest['options']): GradeCallOptions {
  const grading: GradeCallOptions = {};
  if (options === undefined) return grading;
  if (options.timeout_ms !== undefined) grading.timeoutMs = options.timeout_ms;
  if (options.memory_mb !== undefined) grading.memoryMb = options.memory_mb;
  if (options.float_tolerance !== undefined) grading.floatTolerance = options.float_tolerance;
  if (options.strict_types !== undefined) grading.strictTypes = options.strict_types;
  if (options.stop_on_first_failure !== undefined) grading.stopOnFirstFailure = options.stop_on_first_failure;
  if (options.extract_code !== undefined) grading.extractCode = options.extract_code;
  if (options.grade !== undefined) grading.grade = options.grade;
  if (options.repetitions !== undefined) grading.repetitions = options.repetitions;
  return grading;
}

/** Refusals as 4xx (503 for a full queue or a stopping service); anything else is the error handler's. */
function refuse(reply: FastifyReply, e: unknown, metrics: ServiceMetrics): FastifyReply {
  if (e instanceof GradeRefused) {
    metrics.refusedCall(e.reason);
    const status =
      e.reason === 'unknown-problem'
        ? 404
        : e.reason === 'too-many-candidates'
          ? 413
          : e.reason === 'invalid-problem' || e.reason === 'unsupported-language' || e.reason === 'unknown-prompt'
            ? 422
            : 400;
    return reply.code(status).send(e.reason === 'invalid-problem' ? { error: oneLine(e.message), errors: e.errors } : { error: oneLine(e.message) });
  }
  if (e instanceof QueueFull) {
    metrics.refusedCall('queue-full');
    return reply.code(503).header('retry-after', String(e.retryAfterSeconds)).send({ error: e.message });
  }
  if (e instanceof GraderClosed) {
    metrics.refusedCall('stopping');
    return reply.code(503).header('retry-after', '1').send({ error: STOPPING });
  }
  if (e instanceof GradeCancelled) return reply.code(499).send({ error: e.message });
  throw e;
}

/** One result as the scorecard writes records (big integers as tagged values). */
function resultJson(result: GradedCandidate): string {
  return recordJson(result);
}

function streamedError(e: unknown): string {
  if (e instanceof GraderClosed) return STOPPING;
  return oneLine(e instanceof Error ? e.message : String(e));
}

function oneLine(text: string): string {
  return text.replace(/\s*[\r\n]+\s*/g, ' ');
}

function formatMb(bytes: number): string {
  return `${Math.round((bytes / (1024 * 1024)) * 10) / 10} MB`;
}

/** Whether `host` is a loopback address or name (127.0.0.0/8, ::1, localhost), which needs no token. */
export function isLoopback(host: string): boolean {
  const h = host
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1');
  if (h === 'localhost' || h === '::1' || h === '0:0:0:0:0:0:0:1') return true;
  const v4 = h.startsWith('::ffff:') ? h.slice('::ffff:'.length) : h;
  const octets = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(v4);
  return octets !== null && octets.slice(1).every((o) => Number(o) <= 255) && octets[1] === '127';
}
